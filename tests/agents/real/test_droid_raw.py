"""The real Factory Droid (``droid exec``, pinned ``@factory/cli``) with plain python3 command
hooks, offline against a fake Anthropic model (tests/support/droid_drive.py): no hookd daemon.

One session proves Droid's hook contract as hookd relies on it: a deny stops
``rm -rf victim_dir`` (the folder survives, the reason reaches the model as the tool's result)
while an unguarded ``rm -rf decoy_dir`` runs; ``echo ok > harmless.txt`` runs; a matcher named
``Bash`` never fires (Droid's shell tool is ``Execute``); a hook that exits 1 lets its command
run (fail-open). Another session replays the answers hookd's Droid dialect
(hookd/agents/droid.py) encodes, behind another hook that allows everything, and shows that
Droid obeys each: a deny, a rewrite, and hookd's own failure (both exit 2).
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from hookd.agents.droid import DIALECT
from hookd.engine.call import HookCall
from hookd.engine.verdict import Problem, Verdict
from tests.support.droid_drive import DroidRun, drive_droid

pytestmark = pytest.mark.real_cli

REASON = "guard: rm -rf is not allowed here"
#: What Droid puts before a deny's reason in the tool result the model gets.
ERROR = "Error: "

GUARD = f"""\
import json, sys
payload = json.load(sys.stdin)
with open(sys.argv[1], "a") as log:
    log.write(json.dumps(payload) + "\\n")
command = payload.get("tool_input", {{}}).get("command", "")
if "rm -rf victim_dir" in command:
    print(json.dumps({{"hookSpecificOutput": {{"hookEventName": "PreToolUse",
          "permissionDecision": "deny", "permissionDecisionReason": {REASON!r}}}}}))
elif "broken.txt" in command:
    print("the guard is broken", file=sys.stderr)
    sys.exit(1)
"""

#: Replays, for each command, the answer the test put in ANSWERS (stdout, stderr, exit), as the
#: command shim hookd-agent.sh gives it: stderr with a newline after it.
REPLAY = """\
import json, sys
payload = json.load(sys.stdin)
answers = json.load(open(sys.argv[1]))
found = answers.get(payload["tool_input"]["command"])
if found:
    sys.stdout.write(found["stdout"])
    sys.stderr.write(found["stderr"] + "\\n" if found["stderr"] else "")
    sys.exit(found["exit_code"])
"""


ALLOW = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}


def command_hooks(command: str, matcher: str = "Execute") -> list[dict[str, Any]]:
    return [{"matcher": matcher, "hooks": [{"type": "command", "command": command,
                                            "timeout": 10}]}]  # fmt: skip


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> tuple[DroidRun, Path]:
    root = tmp_path_factory.mktemp("droid-raw")
    guard, log = root / "guard.py", root / "calls.jsonl"
    guard.write_text(GUARD)
    never = root / "bash-matcher-ran"
    hooks = {"PreToolUse": [
        *command_hooks(shlex.join([sys.executable, str(guard), str(log)])),
        *command_hooks(f"touch {shlex.quote(str(never))}; exit 2", matcher="Bash"),
    ]}  # fmt: skip

    def make_victim(project: Path) -> None:
        for folder in ("victim_dir", "decoy_dir"):
            (project / folder).mkdir()
            (project / folder / "precious.txt").write_text("still here\n")

    commands = ["rm -rf victim_dir", "echo ok > harmless.txt", "echo ran > broken.txt",
                "rm -rf decoy_dir"]  # fmt: skip
    run = drive_droid(root, hooks, commands, before=make_victim)
    assert run.exit_code == 0, run.stderr
    assert not never.exists()  # the "Bash" matcher never matched Droid's Execute
    return run, log


def test_the_denied_command_does_not_run_and_the_reason_reaches_the_model(
    guarded: tuple[DroidRun, Path],
) -> None:
    run, _ = guarded
    assert (run.project / "victim_dir" / "precious.txt").read_text() == "still here\n"
    assert run.tool_results()[0] == ERROR + REASON
    assert not (run.project / "decoy_dir").exists()  # the control: Droid itself runs rm -rf


def test_the_harmless_command_runs(guarded: tuple[DroidRun, Path]) -> None:
    run, _ = guarded
    assert (run.project / "harmless.txt").read_text() == "ok\n"


def test_a_hook_that_exits_1_lets_the_command_run(guarded: tuple[DroidRun, Path]) -> None:
    run, _ = guarded
    assert (run.project / "broken.txt").read_text() == "ran\n"  # fail-open
    assert run.tool_results()[2].startswith("the guard is broken\n")  # stderr before the result


def test_the_payload_is_claudes_with_droids_tool(guarded: tuple[DroidRun, Path]) -> None:
    run, log = guarded
    first = json.loads(log.read_text().splitlines()[0])
    assert first["hook_event_name"] == "PreToolUse"
    assert first["tool_name"] == "Execute"
    assert first["cwd"] == str(run.project)
    assert first["permission_mode"] == "auto-high"
    assert set(first["tool_input"]) == {"command", "summary", "riskLevel", "riskLevelReason"}
    assert "tool_use_id" not in first


def encoded(command: str, output: dict[str, Any] | None, problem: str | None = None) -> Any:
    """The dialect's answer for a PreToolUse of ``command`` with Claude's merged ``output``."""
    call = HookCall("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": command}},
                    agent="droid", agent_tool="Execute")  # fmt: skip
    verdict = Verdict("PreToolUse", output=output or {})
    if problem is not None:
        verdict = Verdict("PreToolUse", problem=Problem("invalid_input", problem))
    answer = DIALECT.encode(verdict, call)
    return {"stdout": answer.stdout.decode(), "stderr": answer.stderr,
            "exit_code": answer.exit_code}  # fmt: skip


def test_droid_obeys_the_dialects_answers(tmp_path: Path) -> None:
    deny = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                   "permissionDecisionReason": REASON}}  # fmt: skip
    new_input = {"command": "echo new > rewritten.txt", "description": "Write the new file"}
    rewrite = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                      "updatedInput": new_input}}  # fmt: skip
    answers = {
        "rm -rf victim_dir": encoded("rm -rf victim_dir", deny),
        "echo old > original.txt": encoded("echo old > original.txt", rewrite),
        "echo no > unchecked.txt": encoded("echo no > unchecked.txt", None, "the daemon is down"),
    }
    assert answers["echo no > unchecked.txt"]["exit_code"] == 2
    (tmp_path / "answers.json").write_text(json.dumps(answers))
    (tmp_path / "replay.py").write_text(REPLAY)
    replay = shlex.join([sys.executable, str(tmp_path / "replay.py"),
                         str(tmp_path / "answers.json")])  # fmt: skip

    def make_victim(project: Path) -> None:
        (project / "victim_dir").mkdir()

    # a user's own hook listed first allows everything: Droid takes the first JSON decision,
    # so only an exit 2 (the dialect's deny) still denies after it
    allow_all = shlex.join(["echo", json.dumps(ALLOW)])
    hooks = {"PreToolUse": [*command_hooks(allow_all), *command_hooks(replay)]}
    run = drive_droid(tmp_path, hooks, list(answers), before=make_victim)
    assert run.exit_code == 0, run.stderr
    results = run.tool_results()
    assert (run.project / "victim_dir").is_dir()
    assert results[0] == f"{ERROR}{REASON}\n"
    assert (run.project / "rewritten.txt").read_text() == "new\n"
    assert not (run.project / "original.txt").exists()
    assert not (run.project / "unchecked.txt").exists()
    assert results[2] == f"{ERROR}hookd could not check this Droid call: the daemon is down\n"
