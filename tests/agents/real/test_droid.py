"""The real Factory Droid (pinned ``@factory/cli``, ``droid exec``) guarded by hookd, offline.

``hookd install --agent droid`` writes the project's ``.factory/hooks.json`` (the event map at
its root) pointing Droid's PreToolUse at the shim, which forwards each payload to the
daemon of ``conformance/hooks/agents_guard.py``. Droid runs against a fake Anthropic model
(tests/support/droid_drive.py) in a scratch HOME; the model's ``Execute`` calls are real
commands on real files. One Droid run per scenario:

- guarded: ``rm -rf victim_dir`` is denied (the folder survives, the guard's reason, naming
  ``context.agent``, is the tool's result the model gets), ``echo ok > harmless.txt`` runs,
  and the daemon, down at install (``--no-start``), was started by the shim's first call;
- down: the daemon stopped and its module gone, so the shim cannot start it: the rm is
  still refused, with the shim's one line as the result;
- the user's own ``.factory/hooks.json`` (a comment, a hook of theirs): both hooks run, the
  rm is denied, and uninstall gives the file back byte for byte.

``HOOKD_RECORD_AGENTS=1`` runs hookd's entries under tests/agents/real/recorder.py in the
guarded run and writes ``conformance/transcripts/agents/droid.jsonl``.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.agents.real.session import GUARD, REASON, RECORDING, Guarded, _recorded, write_transcript
from tests.agents.test_shim import free_port
from tests.daemon.support import Box, hookd
from tests.support.droid_drive import DroidRun, drive_droid

pytestmark = pytest.mark.real_cli

AGENT = "droid"
CONFIG = Path(".factory") / "hooks.json"
DENIED = f"Error: {REASON} (asked by droid)\n"  # Droid's prefix, the shim's stderr verbatim
COMMANDS = ["rm -rf victim_dir", "echo ok > harmless.txt"]
#: The user's own hooks file: a comment (Droid reads JSON with comments) and a hook that logs.
THEIRS = """\
// the team's droid hooks
{
  "PreToolUse": [
    {"matcher": "Execute", "hooks": [
      {"type": "command", "command": "cat >> ../mine.jsonl; echo >> ../mine.jsonl"}
    ]}
  ]
}
"""


def _victim(project: Path) -> None:
    (project / "victim_dir").mkdir()
    (project / "victim_dir" / "precious.txt").write_text("still here\n")


Step = Callable[[Path], None]


def run(g: Guarded, *, first: Step | None = None, then: Step | None = None) -> DroidRun:
    """One ``droid exec`` of COMMANDS in the box's project (the drive makes it afresh), with
    ``first`` done in it, then ``hookd install --agent droid --no-start``, then ``then``."""

    def before(project: Path) -> None:
        g.module.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(GUARD, g.module)
        _victim(project)
        if first is not None:
            first(project)
        done = hookd(g.box, "install", "--agent", AGENT, str(g.module), "--port", str(g.port),
                     "--no-start")  # fmt: skip
        assert done.returncode == 0, done.stderr
        if g.record is not None:  # each hookd entry run under the recorder
            config = project / CONFIG
            config.write_text(json.dumps(_recorded(json.loads(config.read_text()), g.record)))
        if then is not None:
            then(project)

    env = {"XDG_STATE_HOME": str(g.box.state), "XDG_RUNTIME_DIR": str(g.box.runtime)}
    return drive_droid(g.box.root, None, COMMANDS, env=env, before=before)


def _guarded(root: Path, *, record: bool = False) -> Guarded:
    box = Box(root)
    box.env()
    module = box.project / ".hookd" / "agents_guard.py"
    return Guarded(box, module, free_port(), root / "calls.jsonl" if record else None)


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> tuple[Guarded, DroidRun, str]:
    g = _guarded(tmp_path_factory.mktemp(AGENT), record=RECORDING)
    try:
        result = run(g)
        status = hookd(g.box, "status", str(g.module)).stdout
    finally:
        hookd(g.box, "down")
    assert result.exit_code == 0, result.stderr[-2000:]
    if RECORDING:
        write_transcript(AGENT, g)
    return g, result, status


@pytest.mark.req("R-A65")
def test_the_denied_command_does_not_run_and_the_reason_reaches_the_model(
    session: tuple[Guarded, DroidRun, str],
) -> None:
    _, result, _ = session
    assert (result.project / "victim_dir" / "precious.txt").read_text() == "still here\n"
    assert result.tool_results()[0] == DENIED  # the guard saw Bash, and context.agent "droid"


@pytest.mark.req("R-A65")
def test_a_harmless_command_runs(session: tuple[Guarded, DroidRun, str]) -> None:
    _, result, _ = session
    assert (result.project / "harmless.txt").read_text() == "ok\n"
    assert "Execute" in result.tool_names()


@pytest.mark.req("R-A65", "R-A15")
def test_the_shims_first_call_started_the_daemon(session: tuple[Guarded, DroidRun, str]) -> None:
    g, _, status = session
    assert f"127.0.0.1:{g.port}" in status and "droid: 2 calls, 1 denials, 0 errors" in status


@pytest.mark.req("R-A66")
def test_with_the_daemon_down_and_unable_to_start_the_rm_is_still_refused(tmp_path: Path) -> None:
    g = _guarded(tmp_path)

    def module_gone(project: Path) -> None:
        g.module.unlink()  # installed with --no-start: no daemon runs, none can start

    try:
        result = run(g, then=module_gone)
    finally:
        hookd(g.box, "down")
    assert (result.project / "victim_dir" / "precious.txt").read_text() == "still here\n"
    first = result.tool_results()[0]
    assert first.startswith(f"Error: hookd: the hookd daemon is not running on 127.0.0.1:{g.port}")
    assert f"did not start: {g.module}: no such file" in first


@pytest.mark.req("R-A67")
def test_uninstall_gives_the_users_hooks_file_back_byte_for_byte(tmp_path: Path) -> None:
    g = _guarded(tmp_path)

    def own(project: Path) -> None:
        (project / ".factory").mkdir()
        (project / CONFIG).write_text(THEIRS)

    try:
        result = run(g, first=own)
        assert (result.project / "victim_dir").is_dir()  # hookd's deny beside the user's hook
        assert (result.project / "harmless.txt").is_file()
        lines = (g.box.root / "mine.jsonl").read_text().splitlines()
        seen = [json.loads(line)["tool_input"]["command"] for line in lines if line]
        assert seen == COMMANDS  # the user's hook ran for both calls
        done = hookd(g.box, "uninstall", "--agent", AGENT, str(g.module))
        assert done.returncode == 0, done.stderr
    finally:
        hookd(g.box, "down")
    assert (result.project / CONFIG).read_text() == THEIRS
    assert sorted(p.name for p in (result.project / ".factory").iterdir()) == ["hooks.json"]
