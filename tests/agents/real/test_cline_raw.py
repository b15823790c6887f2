"""The real Cline CLI (pinned ``cline`` 3.0.65) with a plain python3 hook file, offline against
a scripted fake model (tests/support/cline_drive.py): no hookd daemon.

The hook, ``.clinerules/hooks/PreToolUse``, prints the answers hookd's Cline dialect
(hookd/agents/cline.py) encodes for a deny. One session shows Cline obeys them one call at a
time: ``rm -rf victim_dir`` is replaced by a command that prints the reason (full of shell
metacharacters, printed and never run), the folder survives and the model reads the reason;
an ``editor`` call creating ``blocked.txt`` gets a null input (refused, nothing written) and
the reason as hook context; ``echo ok > harmless.txt`` runs; the task goes on to the end.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from hookd.agents import Unsupported
from hookd.agents.cline import DIALECT
from hookd.engine.verdict import Verdict
from tests.support.cline_drive import ClineRun, edit, run_cline, say, shell

pytestmark = pytest.mark.real_cli

REASON = "guard: rm -rf isn't allowed; $(touch PWNED) `touch PWNED` \"here\" \\ 'ok'"
FILE_REASON = "guard: no new files named blocked"

HOOK = """\
#!/usr/bin/env python3
import json, sys
payload = json.load(sys.stdin)
answers = json.load(open({answers!r}))
call = payload["tool_call"]
if call["name"] == "run_commands" and any(
    "rm -rf victim_dir" in c for c in call["input"].get("commands", [])
):
    sys.stdout.write(answers["shell"])
elif call["name"] == "editor" and call["input"].get("path", "").endswith("blocked.txt"):
    sys.stdout.write(answers["editor"])
"""


def denied(tool: str, arguments: dict[str, Any], reason: str) -> str:
    """What hookd's dialect prints for a deny of this call."""
    call = DIALECT.decode(
        "PreToolUse", {"tool_call": {"id": "c", "name": tool, "input": arguments}}
    )
    assert not isinstance(call, Unsupported)
    output = {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                     "permissionDecision": "deny",
                                     "permissionDecisionReason": reason}}  # fmt: skip
    return DIALECT.encode(Verdict("PreToolUse", output=output), call).stdout.decode()


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> ClineRun:
    root = tmp_path_factory.mktemp("cline-raw")
    blocked = str(root / "project" / "blocked.txt")
    answers = root / "answers.json"
    answers.write_text(json.dumps({
        "shell": denied("run_commands", {"commands": ["rm -rf victim_dir"]}, REASON),
        "editor": denied("editor", {"path": blocked, "new_text": "x"}, FILE_REASON),
    }))  # fmt: skip
    (root / "project" / "victim_dir").mkdir(parents=True)
    (root / "project" / "victim_dir" / "keep.txt").write_text("keep")
    steps = [shell("rm -rf victim_dir"), edit(blocked, "x\n"), shell("echo ok > harmless.txt"),
             say("finished")]  # fmt: skip
    return run_cline(
        "clean up", steps, root, hooks={"PreToolUse": HOOK.format(answers=str(answers))}
    )


def test_a_denied_command_does_not_run_and_its_reason_reaches_the_model(run: ClineRun) -> None:
    assert run.exit_code == 0, run.stderr[-2000:]
    assert (run.project / "victim_dir" / "keep.txt").read_text() == "keep"
    assert not (run.project / "PWNED").exists()
    (result,) = json.loads(run.tool_results[0])  # the one command that replaced the call's
    assert result["success"] is False
    assert result["result"].endswith(f"[stderr]\nhookd denied this command: {REASON}\n")


def test_a_denied_file_write_is_refused_and_the_model_is_told(run: ClineRun) -> None:
    assert not (run.project / "blocked.txt").exists()
    assert "Invalid input" in run.tool_results[1]
    assert any(FILE_REASON in text and "<hook_context" in text for text in run.user_texts)


def test_an_allowed_command_runs_and_the_task_goes_on(run: ClineRun) -> None:
    assert (run.project / "harmless.txt").read_text() == "ok\n"
    assert len(run.tool_results) == 3
    result = run.result()
    assert result is not None and result["finishReason"] == "completed"
