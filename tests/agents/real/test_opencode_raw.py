"""The real OpenCode and Kilo CLI, offline, with a plain deny plugin and no hookd: what hookd's
plugin relies on. A ``tool.execute.before`` that throws keeps the tool from running, and the
error's message is the tool result the model sees; one that returns lets it run.

One ``run`` per CLI (tests/support/opencode_drive.py): ``rm -rf victim_dir`` (denied), then
``echo ok > harmless.txt`` (allowed; inside Kilo CLI's own allow list, so no ``--auto``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.daemon.support import Box
from tests.support.opencode_drive import AGENTS, FLAVORS, drive, write_plugin

pytestmark = pytest.mark.real_cli

REASON = "raw-guard: rm -rf is not allowed here"
PLUGIN = f"""
export const RawGuard = async () => ({{
  "tool.execute.before": async (input: any, output: any) => {{
    if (input.tool === "bash" && String(output.args?.command ?? "").includes("rm -rf")) {{
      throw new Error({REASON!r})
    }}
  }},
}})
"""


@pytest.mark.parametrize("agent", AGENTS)
def test_a_throw_denies_the_call_and_the_model_reads_why(tmp_path: Path, agent: str) -> None:
    box = Box(tmp_path)
    box.env()
    plugin = write_plugin(box, agent, "raw-guard.ts", PLUGIN)
    assert plugin.parent == box.project / FLAVORS[agent].plugins
    kept = box.project / "victim_dir" / "precious.txt"
    kept.parent.mkdir(parents=True)
    kept.write_text("still here\n")
    run = drive(box, agent, ["rm -rf victim_dir", "echo ok > harmless.txt"])
    assert run.exit_code == 0, run.stderr[-2000:]
    assert kept.read_text() == "still here\n"
    assert (box.project / "harmless.txt").read_text() == "ok\n"
    assert run.tool_results == [REASON, "(no output)"]
    assert "bash" in run.tool_names
    print(f"{agent}: {run.seconds} s")  # the run's wall time (-s shows it)
