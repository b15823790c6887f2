"""The real Gemini CLI (``@google/gemini-cli`` 0.61.0) guarded by a real hookd daemon, offline.

Gemini runs on scripted model answers (its hidden fake-responses mode,
tests/support/gemini_fake.py) in a private HOME; ``hookd install --agent gemini`` (the
installed console script) writes the project's ``.gemini/settings.json`` entries that point
its BeforeTool and BeforeAgent hooks at hookd's agent shim, which forwards each payload to
the daemon serving conformance/hooks/agents_guard.py (and starts that daemon when it is
down). What the model was sent back is read from Gemini's own local telemetry (each
request's contents) and its ``stream-json`` output.

``HOOKD_RECORD_AGENTS=1`` wraps each command install wrote with tests/support/hook_recorder.py
and writes the guarded session's hook calls to conformance/transcripts/agents/gemini.jsonl.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hookd.agents import SHIM
from tests.daemon.support import Box, hookd
from tests.support.agent_clis import PINNED, agent_cli
from tests.support.gemini_fake import (
    reply,
    shell_call,
    telemetry_events,
    user_settings,
    write_responses,
)

ROOT = Path(__file__).resolve().parents[3]
GUARD = ROOT / "conformance" / "hooks" / "agents_guard.py"
TRANSCRIPT = ROOT / "conformance" / "transcripts" / "agents" / "gemini.jsonl"
RECORDER = ROOT / "tests" / "support" / "hook_recorder.py"
RECORDING = os.environ.get("HOOKD_RECORD_AGENTS") == "1"

RUN_TIMEOUT_S = 120
MODEL = "gemini-2.5-flash"  # pinned: no model-router call to script
BLOCKED = "Tool execution blocked: hookd-guard: rm -rf is not allowed here (asked by gemini)"
CONTEXT = "hookd-guard is watching this session"
#: Gemini's names for the guard's events (UserPromptSubmit, PreToolUse).
EVENTS = ("BeforeAgent", "BeforeTool")
#: Where each session's project holds its copy of the guard (the project's ``.claude/``).
MODULE = ".claude/hooks.py"
#: The project's own settings before hookd is installed: a setting and a hook of the user's.
OWN_SETTINGS: dict[str, Any] = {
    "ui": {"hideTips": True},
    "hooks": {"AfterTool": [{"matcher": "run_shell_command", "hooks": [
        {"type": "command", "command": "echo after >> own-hook.log", "timeout": 5000}]}]},
}  # fmt: skip

Json = dict[str, Any]


def _record_through(settings: Path, log: Path) -> None:
    """Make each command hookd install wrote in ``settings`` go through the recorder, which
    appends the call to ``log``: the command stays as written, after the recorder's words."""
    config: Json = json.loads(settings.read_text())
    for event, groups in config["hooks"].items():
        for handler in (h for g in groups for h in g["hooks"]):
            if "#hookd=" in handler["command"]:
                recorder = shlex.join([sys.executable, str(RECORDER), str(log), event])
                handler["command"] = f"{recorder} {handler['command']}"
    settings.write_text(json.dumps(config, indent=2) + "\n")


@dataclass
class Run:
    """One finished ``gemini -p`` session: its exit, its stream-json events, its telemetry."""

    proc: subprocess.CompletedProcess[str]
    events: list[Json]
    telemetry: Path

    def tool_results(self) -> list[Json]:
        return [e for e in self.events if e.get("type") == "tool_result"]

    def sent_to_model(self) -> list[Any]:
        """The contents of each request the CLI sent the model, in order."""
        requests = telemetry_events(self.telemetry, "gemini_cli.api_request")
        return [json.loads(r["request_text"]) for r in requests]

    def hook_calls(self) -> list[Json]:
        return telemetry_events(self.telemetry, "gemini_cli.hook_call")


@dataclass
class Session:
    """A private home, a project to guard with a copy of the guard module, a daemon port."""

    box: Box
    module: Path
    port: int

    @property
    def settings(self) -> Path:
        return self.box.project / ".gemini" / "settings.json"

    def env(self) -> dict[str, str]:
        return self.box.env(GEMINI_API_KEY="dummy", NO_COLOR="1")

    def hookd(self, *args: str) -> subprocess.CompletedProcess[str]:
        """The console script, run in the project; it must succeed."""
        done = hookd(self.box, *args, env=self.env())
        assert done.returncode == 0, done.stderr
        return done

    def install(self, *, record: Path | None = None) -> None:
        """``hookd install --agent gemini`` for the module on the session's port (which starts
        the daemon); ``record``: each call is also appended to that log."""
        self.hookd("install", "--agent", "gemini", "--port", str(self.port), MODULE)
        if record is not None:
            _record_through(self.settings, record)

    def running(self) -> bool:
        status = hookd(self.box, "status", MODULE, env=self.env())
        assert status.returncode in (0, 3), status.stderr  # 3: not running
        return status.returncode == 0

    def gemini(self, *turns: Json, prompt: str = "tidy up the project") -> Run:
        fake = write_responses(self.box.root / "fake.jsonl", turns)
        telemetry = self.box.root / "telemetry.log"
        telemetry.unlink(missing_ok=True)
        settings = self.box.home / ".gemini" / "settings.json"
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_text(json.dumps(user_settings(telemetry)))
        argv = [str(agent_cli("gemini")), "--fake-responses-non-strict", str(fake), "-m", MODEL,
                "--yolo", "-o", "stream-json", "-p", prompt]  # fmt: skip
        proc = subprocess.run(
            argv, cwd=self.box.project, env=self.env(), stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False,
        )  # fmt: skip
        events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
        return Run(proc, events, telemetry)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def _listens(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _session(root: Path, *, prompt_hook: bool = True) -> Session:
    """``prompt_hook=False``: the module's copy has no UserPromptSubmit hook (so no BeforeAgent
    entry is installed)."""
    box = Box(root)
    box.env()
    module = box.project / MODULE
    module.parent.mkdir()
    shutil.copy(GUARD, module)
    if not prompt_hook:
        module.write_text(module.read_text() + '\ndel hooks["UserPromptSubmit"]\n')
    victim = box.project / "victim" / "keep.txt"
    victim.parent.mkdir()
    victim.write_text("still here\n")
    (box.project / ".gemini").mkdir()
    (box.project / ".gemini" / "settings.json").write_text(json.dumps(OWN_SETTINGS, indent=2))
    return Session(box, module, _free_port())


def _write_transcript(log: Path) -> None:
    header = {"hookd_agent_transcript": 1, "agent": "gemini",
              "cli": f"{PINNED['gemini'].package}@{PINNED['gemini'].version}",
              "module": str(GUARD.relative_to(ROOT))}  # fmt: skip
    TRANSCRIPT.parent.mkdir(parents=True, exist_ok=True)
    TRANSCRIPT.write_text(json.dumps(header) + "\n" + log.read_text())


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Session, Run]]:
    """One guarded session: the model asks for ``rm -rf victim``, then a harmless command."""
    session = _session(tmp_path_factory.mktemp("gemini"))
    log = session.box.root / "hook-calls.jsonl" if RECORDING else None
    try:
        session.install(record=log)
        run = session.gemini(
            shell_call("rm -rf victim"), shell_call("echo ran > made.txt"), reply("done")
        )
        assert run.proc.returncode == 0, run.proc.stderr
        if log is not None:
            _write_transcript(log)
        yield session, run
    finally:
        hookd(session.box, "down", MODULE, env=session.env())


@pytest.mark.req("R-A30")
def test_the_denied_command_does_not_run_and_the_model_reads_why(
    guarded: tuple[Session, Run],
) -> None:
    session, run = guarded
    assert (session.box.project / "victim" / "keep.txt").read_text() == "still here\n"
    denied = run.tool_results()[0]
    assert (denied["status"], denied["output"]) == ("error", BLOCKED)
    after_denial = run.sent_to_model()[1][-1]  # the turn that answers the model's first call
    assert after_denial["parts"][0]["functionResponse"]["response"] == {"error": BLOCKED}


@pytest.mark.req("R-A30")
def test_a_harmless_command_still_runs(guarded: tuple[Session, Run]) -> None:
    session, run = guarded
    assert (session.box.project / "made.txt").read_text() == "ran\n"
    assert [r["status"] for r in run.tool_results()] == ["error", "success"]


@pytest.mark.req("R-A30")
def test_the_users_own_hook_runs_beside_hookds(guarded: tuple[Session, Run]) -> None:
    session, run = guarded
    settings = json.loads((session.box.project / ".gemini" / "settings.json").read_text())
    assert settings["ui"] == OWN_SETTINGS["ui"]
    assert settings["hooks"]["AfterTool"] == OWN_SETTINGS["hooks"]["AfterTool"]
    assert (session.box.project / "own-hook.log").read_text() == "after\n"  # the call that ran
    ran = {(c["hook_event_name"], c["hook_name"]) for c in run.hook_calls()}
    assert ("AfterTool", "echo after >> own-hook.log") in ran


@pytest.mark.req("R-A31")
def test_the_guards_prompt_context_reaches_the_model(guarded: tuple[Session, Run]) -> None:
    _, run = guarded
    prompt_turn = run.sent_to_model()[0][-1]
    assert prompt_turn["parts"][-1] == {"text": f"<hook_context>{CONTEXT}</hook_context>"}


@pytest.mark.req("R-A30")
def test_the_hooks_are_the_ones_hookd_install_wrote(guarded: tuple[Session, Run]) -> None:
    session, _ = guarded
    hooks = json.loads(session.settings.read_text())["hooks"]
    for event in EVENTS:
        (group,) = [g for g in hooks[event] if "#hookd=" in json.dumps(g)]
        (handler,) = group["hooks"]
        assert "matcher" not in group and handler["timeout"] == 61_000  # ms: 31 s budget + 30
        assert f"bash {SHIM} {session.port} " in handler["command"]
        assert f" gemini/{event} 31 closed " in handler["command"]


@pytest.mark.req("R-A32")
@pytest.mark.parametrize("events", [("BeforeTool",), EVENTS], ids=["tool", "prompt-and-tool"])
def test_with_the_daemon_gone_the_guarded_call_is_still_blocked(
    tmp_path: Path, events: tuple[str, ...]
) -> None:
    session = _session(tmp_path, prompt_hook=events == EVENTS)
    session.install()
    assert sorted(json.loads(session.settings.read_text())["hooks"]) == sorted(
        ["AfterTool", *events]
    )  # the user's AfterTool, and install's entries
    session.hookd("down", MODULE)
    session.module.unlink()  # nothing on the port, and nothing a start could serve
    run = session.gemini(shell_call("rm -rf victim"), reply("done"))
    assert run.proc.returncode == 0, run.proc.stderr
    assert (session.box.project / "victim" / "keep.txt").read_text() == "still here\n"
    down = (
        f"hookd: the hookd daemon is not running on 127.0.0.1:{session.port} and did not "
        f"start: {session.module}: no such file"
    )
    calls = [(c["hook_event_name"], c["exit_code"], c["stderr"]) for c in run.hook_calls()]
    assert calls == [(events[0], 2, down + "\n")]  # the first fails closed; nothing runs after
    assert not _listens(session.port)  # nothing was started
    if events == ("BeforeTool",):  # the model hears why its call was refused
        (refused,) = run.tool_results()
        assert refused["output"] == f"Tool execution blocked: {down}"
        assert f"Tool execution blocked: {down}" in json.dumps(run.sent_to_model()[-1])
    else:  # the prompt itself is refused: the model is never asked
        assert run.sent_to_model() == []
        errors = [e["message"] for e in run.events if e["type"] == "error"]
        assert errors == [f"Agent execution blocked: {down}"]


@pytest.mark.req("R-A15", "R-A30")
def test_the_shim_starts_a_daemon_that_is_down(tmp_path: Path) -> None:
    session = _session(tmp_path)
    session.install()
    session.hookd("down", MODULE)  # as after an idle exit or a reboot
    assert not session.running()
    try:
        run = session.gemini(shell_call("rm -rf victim"), reply("done"))
        assert run.proc.returncode == 0, run.proc.stderr
        assert (session.box.project / "victim" / "keep.txt").read_text() == "still here\n"
        denied = run.tool_results()[0]
        assert (denied["status"], denied["output"]) == ("error", BLOCKED)
        calls = [(c["hook_event_name"], c["exit_code"]) for c in run.hook_calls()]
        assert calls[:2] == [("BeforeAgent", 0), ("BeforeTool", 0)]  # the first call started it
        prompt_turn = run.sent_to_model()[0][-1]
        assert prompt_turn["parts"][-1] == {"text": f"<hook_context>{CONTEXT}</hook_context>"}
        assert session.running()
    finally:
        hookd(session.box, "down", MODULE, env=session.env())


@pytest.mark.req("R-A10", "R-A30")
@pytest.mark.parametrize("own", [True, False], ids=["own-settings", "no-settings"])
def test_uninstall_leaves_the_project_as_it_was_before_install(tmp_path: Path, own: bool) -> None:
    session = _session(tmp_path)
    if not own:
        shutil.rmtree(session.settings.parent)
    try:
        session.install()
        run = session.gemini(shell_call("rm -rf victim"), reply("done"))
        assert run.proc.returncode == 0, run.proc.stderr
        assert run.tool_results()[0]["output"] == BLOCKED  # installed, and guarding
        done = session.hookd("uninstall", "--agent", "gemini", MODULE)
    finally:
        hookd(session.box, "down", MODULE, env=session.env())
    assert "removed 2 hookd entries" in done.stdout and "daemon stopped" in done.stdout
    if own:
        assert json.loads(session.settings.read_text()) == OWN_SETTINGS
    else:
        assert not session.settings.parent.exists()  # nor the folder install made for it
    assert not session.settings.with_name("settings.json.hookd.bak").exists()
    assert not session.running()
