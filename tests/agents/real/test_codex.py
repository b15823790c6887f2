"""The real Codex CLI (``@openai/codex``, pinned) guarded by a real hookd daemon, offline.

``codex exec`` runs against a fake Responses API (tests/support/fake_responses.py) in a private
HOME and CODEX_HOME; ``hookd install --agent codex`` points the project's ``.codex/hooks.json``
(PreToolUse and UserPromptSubmit, the events of conformance/hooks/agents_guard.py) at the agent
shim, which forwards each payload to the module's daemon. The model's shell calls are real
commands on real files: a denied one must leave its file alone, an allowed one must act.

Codex refuses a plain ``rm -rf`` by its own policy, so the guarded command is spelled
``command rm -rf DIR``: Codex runs that, the guard denies it.

``HOOKD_RECORD_AGENTS=1`` wraps each installed hook command with
tests/support/hook_recorder.py and rewrites conformance/transcripts/agents/codex.jsonl from
the guarded session.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hookd.daemon.where import module_key, state_dir, token_file
from tests.daemon.support import Box, hookd
from tests.support.agent_clis import PINNED, agent_cli
from tests.support.fake_responses import FakeResponses, Script, shell_then_done

pytestmark = pytest.mark.real_cli

ROOT = Path(__file__).resolve().parents[3]
GUARD = ROOT / "conformance" / "hooks" / "agents_guard.py"
TRANSCRIPT = ROOT / "conformance" / "transcripts" / "agents" / "codex.jsonl"
RECORDER = ROOT / "tests" / "support" / "hook_recorder.py"
RECORDING = os.environ.get("HOOKD_RECORD_AGENTS") == "1"
#: What Codex itself writes before a hook's reason, and after it the command.
BLOCKED = "Command blocked by PreToolUse hook: "
DENIED = "hookd-guard: rm -rf is not allowed here (asked by codex)"
CONTEXT = "hookd-guard is watching this session"
CODEX_TIMEOUT_S = 30.0
#: How ``hookd install`` marks its own entries in an agent's hook file.
MARK = "#hookd="
RECORD_PREFIX = shlex.join([sys.executable, str(RECORDER)])


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
    project: Path, module: Path, port: int, *, box: Box, record: Path | None = None
) -> Path:
    """``hookd install --agent codex MODULE --port PORT`` in ``project`` (it starts the daemon);
    with ``record``, each hookd entry's command is wrapped so that its calls are appended there."""
    done = hookd(box, "install", "--agent", "codex", str(module), "--port", str(port), cwd=project)
    assert done.returncode == 0, done.stderr
    path = project / ".codex" / "hooks.json"
    if record is not None:
        _edit_entries(path, lambda event, command: f"{RECORD_PREFIX} {record} {event} {command}")
    return path


def _uninstall(box: Box, module: Path) -> None:
    done = hookd(box, "uninstall", "--agent", "codex", str(module), cwd=box.project)
    assert done.returncode == 0, done.stderr


def _edit_entries(path: Path, edit: Callable[[str, str], str | None]) -> None:
    """Rewrite the command of each hookd entry in a Codex hooks file (None drops the entry)."""
    config = json.loads(path.read_text())
    for event, groups in config["hooks"].items():
        for group in groups:
            kept = []
            for hook in group["hooks"]:
                if MARK in hook["command"]:
                    hook["command"] = edit(event, hook["command"])
                if hook["command"] is not None:
                    kept.append(hook)
            group["hooks"] = kept
    path.write_text(json.dumps(config, indent=2) + "\n")


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
def guard_daemon(
    root: Path, *, user_hooks: dict[str, Any] | None = None, record: Path | None = None
) -> Iterator[Guarded]:
    """A private box under ``root`` whose project (a git work tree, holding a copy of the guard
    and, given ``user_hooks``, the user's own ``.codex/hooks.json``) hookd is installed in."""
    box = Box(root)
    box.env()
    subprocess.run(["git", "init", "-q", str(box.project)], check=True, timeout=CODEX_TIMEOUT_S)
    module = box.project / "agents_guard.py"
    shutil.copy(GUARD, module)
    if user_hooks is not None:
        (box.project / ".codex").mkdir()
        (box.project / ".codex" / "hooks.json").write_text(json.dumps(user_hooks, indent=2))
    port = free_port()
    _install(box.project, module, port, box=box, record=record)
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
    root = tmp_path_factory.mktemp("codex")
    record = root / "hook-calls.jsonl" if RECORDING else None
    with guard_daemon(root, record=record) as guarded:
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
    guarded.module.unlink()  # the shim cannot start it again
    commands = [f"command rm -rf {guarded.victim}"]
    prompt_blocked = run_codex(box, shell_then_done(commands))
    assert prompt_blocked.proc.returncode == 0, prompt_blocked.explain()
    assert prompt_blocked.fake.requests == []  # UserPromptSubmit failed closed: no model turn
    hooks = box.project / ".codex" / "hooks.json"
    _edit_entries(hooks, lambda event, command: command if event == "PreToolUse" else None)
    run = run_codex(box, shell_then_done(commands))
    assert run.proc.returncode == 0, run.explain()
    assert (guarded.victim / "keep.txt").exists()
    (denied,) = run.outputs()
    down = (
        f"hookd: the hookd daemon is not running on 127.0.0.1:{guarded.port} and did not start: "
        f"{guarded.module}: no such file"
    )
    assert denied == f"{BLOCKED}{down}. Command: command rm -rf {guarded.victim}", run.explain()


@pytest.mark.req("R-A15", "R-A20")
def test_a_daemon_that_is_down_is_started_by_the_shim(guarded: Guarded) -> None:
    assert hookd(guarded.box, "down", str(guarded.module)).returncode == 0
    run = run_codex(guarded.box, shell_then_done([f"command rm -rf {guarded.victim}"]))
    assert run.proc.returncode == 0, run.explain()
    assert (guarded.victim / "keep.txt").exists()
    assert run.outputs()[0].startswith(f"{BLOCKED}{DENIED}. "), run.explain()
    assert CONTEXT in run.developer_texts()
    assert "no daemon" not in hookd(guarded.box, "status").stdout


@pytest.mark.req("R-A25")
def test_uninstall_gives_back_the_users_own_codex_hooks(tmp_path: Path) -> None:
    log = tmp_path / "user-hook.jsonl"
    own = {"type": "command", "command": f"cat >> {log}; echo >> {log}", "timeout": 10}
    user_hooks = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [own]}]}}
    with guard_daemon(tmp_path, user_hooks=user_hooks) as guarded:
        commands = [f"command rm -rf {guarded.victim}", f"touch {guarded.made}"]
        run = run_codex(guarded.box, shell_then_done(commands))
        assert run.proc.returncode == 0, run.explain()
        assert (guarded.victim / "keep.txt").exists() and guarded.made.exists(), run.explain()
        seen = [
            json.loads(line)["tool_input"]["command"]
            for line in log.read_text().splitlines()
            if line
        ]
        assert seen == commands  # the user's hook ran beside hookd's, for both calls
        _uninstall(guarded.box, guarded.module)
        hooks = guarded.box.project / ".codex" / "hooks.json"
        assert json.loads(hooks.read_text()) == user_hooks
        assert sorted(p.name for p in hooks.parent.iterdir()) == ["hooks.json"]
        assert "no daemon" in hookd(guarded.box, "status").stdout
