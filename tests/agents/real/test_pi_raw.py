"""The real pi (pinned ``@mariozechner/pi-coding-agent``), offline against a fake model, with a
throwaway project extension and no hookd: what a ``tool_call`` handler's answer does.

``{block: true, reason}`` stops the call and the model gets the reason as the tool's result; a
handler that returns nothing lets it run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.pi_drive import PiBox, drive

pytestmark = pytest.mark.real_cli

REASON = "raw-deny: recursive deletes are not allowed"
DENY = """
export default function (pi: any) {
  pi.on("tool_call", async (event: any) => {
    if (event.toolName === "bash" && String(event.input.command).includes("rm -rf")) {
      return { block: true, reason: "REASON" };
    }
    return undefined;
  });
}
""".replace("REASON", REASON)


def test_a_blocked_call_does_not_run_and_the_model_sees_the_reason(tmp_path: Path) -> None:
    box = PiBox(tmp_path).make()
    victim = box.project / "victim_dir"
    victim.mkdir()
    (victim / "keep.txt").write_text("keep me")
    run = drive(["rm -rf victim_dir", "echo ok > harmless.txt"], box=box,
                extensions={"deny.ts": DENY})  # fmt: skip
    assert run.returncode == 0, run.output
    assert (victim / "keep.txt").read_text() == "keep me"
    assert (box.project / "harmless.txt").read_text() == "ok\n"
    assert run.tool_results == [REASON, "(no output)"]
    denied, allowed = run.tool_messages
    assert denied["role"] == allowed["role"] == "tool"
