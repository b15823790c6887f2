"""The real Cline CLI (pinned ``cline`` 3.0.65) guarded by hookd, offline.

``hookd install --agent cline`` writes one bash script per event of
``conformance/hooks/agents_guard.py`` in the project's ``.clinerules/hooks/``
(``PreToolUse.zsh``, ``UserPromptSubmit.zsh``), each running the shim, which forwards the
payload to the module's daemon. Cline runs against a scripted fake chat model
(tests/support/cline_drive.py) in a scratch HOME; the model's ``run_commands`` calls are real
commands on real files. One Cline run per scenario:

- guarded: ``rm -rf victim_dir`` is denied one call at a time (Cline runs, in its place, a
  command that prints the guard's reason, naming ``context.agent``, and fails: the folder
  survives and the model reads the reason), ``echo ok > harmless.txt`` runs, the task
  completes, and the daemon, down at install (``--no-start``), was started by the first call;
- down: the daemon stopped and its module gone, so the shim cannot start it: the shim prints
  a cancel (its exit code would be ignored) and Cline aborts the task before the rm;
- the user's own ``PreToolUse.sh`` beside hookd's, which logs every call and answers the rm
  with an ``overrideInput`` of its own: hookd's script runs after it (``.zsh`` sorts last),
  so hookd's deny is the one Cline keeps; uninstall leaves the user's folder as it was.

``HOOKD_RECORD_AGENTS=1`` runs hookd's scripts under tests/agents/real/recorder.py in the
guarded run and writes ``conformance/transcripts/agents/cline.jsonl``.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.agents.real.session import (
    GUARD,
    REASON,
    RECORDER,
    RECORDING,
    Guarded,
    write_transcript,
)
from tests.agents.test_shim import free_port
from tests.daemon.support import Box, hookd
from tests.support.cline_drive import ClineRun, run_cline, say, shell

pytestmark = pytest.mark.real_cli

AGENT = "cline"
HOOKS = Path(".clinerules") / "hooks"
DENIED = f"[stderr]\nhookd denied this command: {REASON} (asked by cline)\n"
STEPS = [shell("rm -rf victim_dir"), shell("echo ok > harmless.txt"), say("finished")]
#: The user's own hook: logs each call, and answers the rm with an overrideInput of its own
#: (the same command), which Cline would run if it came after hookd's deny.
THEIRS = """\
#!/bin/bash
payload=$(cat)
printf '%s\\n' "$payload" >>../mine.jsonl
case $payload in
*victim_dir*) printf '%s\\n' '{"overrideInput": {"commands": ["rm -rf victim_dir"]}}' ;;
esac
"""

Step = Callable[[Path], None]


def _guarded(root: Path, *, record: bool = False) -> Guarded:
    box = Box(root)
    box.env()
    module = box.project / ".hookd" / "agents_guard.py"
    module.parent.mkdir(parents=True)
    shutil.copy(GUARD, module)
    victim = box.project / "victim_dir"
    victim.mkdir()
    (victim / "precious.txt").write_text("still here\n")
    port = free_port()
    done = hookd(box, "install", "--agent", AGENT, str(module), "--port", str(port), "--no-start")
    assert done.returncode == 0, done.stderr
    g = Guarded(box, module, port, root / "calls.jsonl" if record else None)
    if g.record is not None:
        _record(g)
    return g


def _record(g: Guarded) -> None:
    """Each of hookd's scripts runs the shim under the recorder, which appends to g.record."""
    for script in (g.box.project / HOOKS).glob("*.zsh"):
        event = script.name.removesuffix(".zsh")
        wrap = shlex.join([sys.executable, str(RECORDER), str(g.record), event])
        script.write_text(script.read_text().replace("\nexec bash ", f"\nexec {wrap} bash "))


def run(g: Guarded) -> ClineRun:
    done = run_cline("clean up the project", STEPS, g.box.root, env=g.box.env())
    assert not done.timed_out, done.stderr[-2000:]
    assert done.exit_code == 0, done.stderr[-2000:]
    return done


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> tuple[Guarded, ClineRun, str]:
    g = _guarded(tmp_path_factory.mktemp(AGENT), record=RECORDING)
    try:
        result = run(g)
        status = hookd(g.box, "status", str(g.module)).stdout
    finally:
        hookd(g.box, "down")
    if RECORDING:
        write_transcript(AGENT, g)
    return g, result, status


@pytest.mark.req("R-A74")
def test_the_denied_command_does_not_run_and_the_reason_reaches_the_model(
    session: tuple[Guarded, ClineRun, str],
) -> None:
    _, result, _ = session
    assert (result.project / "victim_dir" / "precious.txt").read_text() == "still here\n"
    (denied,) = json.loads(result.tool_results[0])  # the one command that replaced the call's
    assert denied["success"] is False and denied["result"].endswith(DENIED)


@pytest.mark.req("R-A74")
def test_a_harmless_command_runs_and_the_task_completes(
    session: tuple[Guarded, ClineRun, str],
) -> None:
    _, result, _ = session
    assert (result.project / "harmless.txt").read_text() == "ok\n"
    assert len(result.tool_results) == 2
    found = result.result()
    assert found is not None and found["finishReason"] == "completed"


@pytest.mark.req("R-A74", "R-A15")
def test_the_shims_first_call_started_the_daemon(session: tuple[Guarded, ClineRun, str]) -> None:
    g, _, status = session
    assert f"127.0.0.1:{g.port}" in status and "cline: 2 calls, 1 denials, 0 errors" in status


@pytest.mark.req("R-A75")
def test_with_the_daemon_down_and_unable_to_start_the_task_is_cancelled(tmp_path: Path) -> None:
    g = _guarded(tmp_path)
    g.module.unlink()  # installed with --no-start: no daemon runs, none can start
    try:
        result = run(g)
    finally:
        hookd(g.box, "down")
    assert (result.project / "victim_dir" / "precious.txt").read_text() == "still here\n"
    assert result.tool_results == [] and not (result.project / "harmless.txt").exists()
    found = result.result()
    assert found is not None and found["finishReason"] == "aborted"
    said = f"hookd: the hookd daemon is not running on 127.0.0.1:{g.port} and did not start: "
    assert said in result.log()


@pytest.mark.req("R-A76")
def test_hookds_deny_holds_beside_the_users_hook_and_uninstall_keeps_theirs(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "project" / HOOKS
    folder.mkdir(parents=True)
    (folder / "PreToolUse.sh").write_text(THEIRS)
    g = _guarded(tmp_path)
    try:
        result = run(g)
        done = hookd(g.box, "uninstall", "--agent", AGENT, str(g.module))
        assert done.returncode == 0, done.stderr
    finally:
        hookd(g.box, "down")
    assert (result.project / "victim_dir" / "precious.txt").read_text() == "still here\n"
    (denied,) = json.loads(result.tool_results[0])
    assert denied["result"].endswith(DENIED)  # hookd's overrideInput came last: Cline kept it
    assert (result.project / "harmless.txt").read_text() == "ok\n"
    lines = (tmp_path / "mine.jsonl").read_text().splitlines()
    seen = [json.loads(line)["tool_call"]["input"]["commands"] for line in lines]
    assert seen == [["rm -rf victim_dir"], ["echo ok > harmless.txt"]]  # theirs ran for both
    assert [p.name for p in folder.iterdir()] == ["PreToolUse.sh"]
    assert (folder / "PreToolUse.sh").read_text() == THEIRS
