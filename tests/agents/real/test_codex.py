"""The real Codex CLI (``@openai/codex``, pinned) guarded by a real hookd daemon, offline.

``codex exec`` runs against a fake Responses API (tests/support/fake_responses.py) in a private
HOME and CODEX_HOME; the project's ``.codex/hooks.json`` points Codex's PreToolUse and
UserPromptSubmit command hooks at the agent shim, which forwards each payload to the daemon
that ``hookd up`` started for conformance/hooks/agents_guard.py. The model's shell calls are
real commands on real files: a denied one must leave its file alone, an allowed one must act.

Codex refuses a plain ``rm -rf`` by its own policy, so the guarded command is spelled
``command rm -rf DIR``: Codex runs that, the guard denies it.

``HOOKD_RECORD_AGENTS=1`` wraps each hook command with tests/support/record_agent_hook.py and
rewrites conformance/transcripts/agents/codex.jsonl from the guarded session.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hookd.agents import SHIM
from hookd.daemon.where import module_key, state_dir, token_file
from tests.daemon.support import Box, hookd
from tests.support.agent_clis import PINNED, agent_cli
from tests.support.fake_responses import FakeResponses, Script, shell_then_done

pytestmark = pytest.mark.real_cli

ROOT = Path(__file__).resolve().parents[3]
GUARD = ROOT / "conformance" / "hooks" / "agents_guard.py"
TRANSCRIPT = ROOT / "conformance" / "transcripts" / "agents" / "codex.jsonl"
RECORDER = ROOT / "tests" / "support" / "record_agent_hook.py"
RECORDING = os.environ.get("HOOKD_RECORD_AGENTS") == "1"
#: What Codex itself writes before a hook's reason, and after it the command.
BLOCKED = "Command blocked by PreToolUse hook: "
DENIED = "hookd-guard: rm -rf is not allowed here (asked by codex)"
CONTEXT = "hookd-guard is watching this session"
CODEX_TIMEOUT_S = 30.0
#: The events the project's hooks.json sends to the daemon; all of them block.
EVENTS = ("PreToolUse", "UserPromptSubmit")


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def _token_file(box: Box, module: Path) -> Path:
    """The token file of ``module``'s daemon in ``box`` (hookd.daemon.paths' layout)."""
    key = module_key(str(module.resolve()))
    return Path(token_file(state_dir(str(box.state / "hookd"), key)))


def _install(
    project: Path,
    module: Path,
    port: int,
    *,
    box: Box,
    events: tuple[str, ...] = EVENTS,
    record: Path | None = None,
) -> Path:
    """Point the project's ``.codex/hooks.json`` at ``module``'s daemon on ``port`` through the
    agent shim (each event fails closed); with ``record``, each call is appended there too."""
    hooks: dict[str, Any] = {}
    for event in events:
        shim = ["bash", SHIM, str(port), str(_token_file(box, module)), f"codex/{event}",
                "55", "closed"]  # fmt: skip
        if record is not None:
            shim = [sys.executable, str(RECORDER), str(record), event, *shim]
        command = {"type": "command", "command": shlex.join(shim), "timeout": 60}
        hooks[event] = [{"hooks": [command]}]
    path = project / ".codex" / "hooks.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hooks": hooks}, indent=2) + "\n")
    return path


@dataclass
class CodexRun:
    """One ``codex exec``: its exit and output (``--json`` events), and what the fake model got."""

    proc: subprocess.CompletedProcess[str]
    fake: FakeResponses

    def explain(self) -> str:
        return f"exit {self.proc.returncode}\n{self.proc.stdout}\n{self.proc.stderr[-3000:]}"

    def outputs(self) -> list[str]:
        """The tool results Codex sent back to the model, in call order."""
        return list(self.fake.tool_outputs().values())

    def developer_texts(self) -> list[str]:
        """The texts of the developer messages in the model's first request."""
        first = self.fake.requests[0]["input"]
        return [
            part["text"]
            for item in first
            if item.get("type") == "message" and item.get("role") == "developer"
            for part in item["content"]
            if part.get("type") == "input_text"
        ]


def _configure(box: Box, base_url: str) -> Path:
    """``$CODEX_HOME/config.toml``: the fake provider, no analytics or update check, and the
    project trusted (Codex reads a project's ``.codex/`` only in a trusted project)."""
    home = box.home / ".codex"
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        'model_provider = "fake"\nmodel = "gpt-5-codex"\ncheck_for_update_on_startup = false\n\n'
        "[analytics]\nenabled = false\n\n"
        "[model_providers.fake]\n"
        f'name = "fake"\nbase_url = "{base_url}"\nenv_key = "FAKE_KEY"\nwire_api = "responses"\n\n'
        f'[projects."{box.project.resolve()}"]\ntrust_level = "trusted"\n'
    )
    return home


def run_codex(box: Box, script: Script, prompt: str = "tidy up") -> CodexRun:
    """``codex exec`` in the project against a fake model playing ``script``."""
    with FakeResponses(script) as fake:
        home = _configure(box, fake.base_url)
        argv = [str(agent_cli("codex")), "exec", "--dangerously-bypass-hook-trust",
                "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check", "--json",
                prompt]  # fmt: skip
        env = box.env(CODEX_HOME=str(home), FAKE_KEY="fake-key")
        proc = subprocess.run(
            argv, cwd=box.project, env=env, stdin=subprocess.DEVNULL, capture_output=True,
            text=True, timeout=CODEX_TIMEOUT_S, check=False,
        )  # fmt: skip
    assert fake.errors == [], fake.errors
    return CodexRun(proc, fake)


@dataclass
class Guarded:
    """A box whose project is guarded by a running daemon, and its victim directory."""

    box: Box
    module: Path
    port: int
    victim: Path
    made: Path


@contextmanager
def guard_daemon(root: Path) -> Iterator[Guarded]:
    """A private box under ``root`` whose daemon (``hookd up``) serves a copy of the guard."""
    box = Box(root)
    box.env()
    module = box.root / "agents_guard.py"
    shutil.copy(GUARD, module)
    port = free_port()
    up = hookd(box, "up", "--quiet", str(module), "--port", str(port))
    assert up.returncode == 0, up.stderr
    assert _token_file(box, module).is_file()
    victim = box.project / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("precious\n")
    try:
        yield Guarded(box, module, port, victim, box.project / "made.txt")
    finally:
        hookd(box, "down")


@pytest.fixture
def guarded(tmp_path: Path) -> Iterator[Guarded]:
    with guard_daemon(tmp_path) as g:
        yield g


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Guarded, CodexRun]]:
    """One Codex session: the guarded ``rm -rf``, then a harmless command, then "done"."""
    with guard_daemon(tmp_path_factory.mktemp("codex")) as guarded:
        record = guarded.box.root / "hook-calls.jsonl" if RECORDING else None
        _install(guarded.box.project, guarded.module, guarded.port, box=guarded.box, record=record)
        commands = [f"command rm -rf {guarded.victim}", f"touch {guarded.made}"]
        run = run_codex(guarded.box, shell_then_done(commands))
        assert run.proc.returncode == 0, run.explain()
        if record is not None:
            _write_transcript(record)
        yield guarded, run


def _write_transcript(record: Path) -> None:
    cli = PINNED["codex"]
    header = {
        "hookd_agent_transcript": 1,
        "agent": "codex",
        "cli": f"{cli.package}@{cli.version}",
        "module": str(GUARD.relative_to(ROOT)),
    }
    TRANSCRIPT.parent.mkdir(parents=True, exist_ok=True)
    TRANSCRIPT.write_text(json.dumps(header) + "\n" + record.read_text())


@pytest.mark.req("R-A20")
def test_the_guarded_command_does_not_run_and_the_reason_reaches_the_model(
    session: tuple[Guarded, CodexRun],
) -> None:
    guarded, run = session
    assert (guarded.victim / "keep.txt").read_text() == "precious\n"
    denied = run.outputs()[0]
    assert denied == f"{BLOCKED}{DENIED}. Command: command rm -rf {guarded.victim}", run.explain()


@pytest.mark.req("R-A20")
def test_a_harmless_command_still_runs(session: tuple[Guarded, CodexRun]) -> None:
    guarded, run = session
    assert guarded.made.exists(), run.explain()
    assert "Process exited with code 0" in run.outputs()[1]


@pytest.mark.req("R-A21")
def test_the_prompt_context_reaches_the_model(session: tuple[Guarded, CodexRun]) -> None:
    _, run = session
    assert CONTEXT in run.developer_texts(), run.explain()


@pytest.mark.req("R-A22")
def test_with_no_daemon_the_guarded_command_is_still_blocked(guarded: Guarded) -> None:
    box = guarded.box
    assert hookd(box, "down", str(guarded.module)).returncode == 0
    guarded.module.unlink()  # nothing could start it again
    commands = [f"command rm -rf {guarded.victim}"]
    _install(box.project, guarded.module, guarded.port, box=box)
    prompt_blocked = run_codex(box, shell_then_done(commands))
    assert prompt_blocked.proc.returncode == 0, prompt_blocked.explain()
    assert prompt_blocked.fake.requests == []  # UserPromptSubmit failed closed: no model turn
    _install(box.project, guarded.module, guarded.port, box=box, events=("PreToolUse",))
    run = run_codex(box, shell_then_done(commands))
    assert run.proc.returncode == 0, run.explain()
    assert (guarded.victim / "keep.txt").exists()
    (denied,) = run.outputs()
    down = f"hookd: the hookd daemon is not running on 127.0.0.1:{guarded.port}"
    assert denied == f"{BLOCKED}{down}. Command: command rm -rf {guarded.victim}", run.explain()
