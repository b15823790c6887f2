"""The real Qwen Code (pinned ``@qwen-code/qwen-code``), offline against a fake Chat
Completions server, guarded by hookd: its ``PreToolUse`` command hook runs the shim to a real
daemon.

One session runs a command the guard denies (``rm -rf``), then a harmless one; another runs the
denied command with the daemon down and its module gone, so it cannot start.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.agents.real.session import (
    REASON,
    RECORDING,
    Guarded,
    guarded,
    run_cli,
    write_transcript,
)
from tests.support.agent_clis import agent_cli
from tests.support.fake_chat import FakeChat

AGENT = "qwen"
#: Qwen's own hook timeout: seconds below 1000 (it reads 1000 and more as milliseconds).
HOOK_TIMEOUT_S = 60


def _install(g: Guarded) -> Path:
    """The project's ``.qwen/settings.json``: every tool call through the shim."""
    entry = {"type": "command", "command": g.command(f"{AGENT}/PreToolUse"),
             "timeout": HOOK_TIMEOUT_S}  # fmt: skip
    path = g.box.project / ".qwen" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hooks": {"PreToolUse": [{"hooks": [entry]}]}}, indent=2))
    return path


def qwen(g: Guarded, fake: FakeChat) -> str:
    """One headless ``qwen`` session against ``fake``; its stream-json stdout."""
    env = {
        "OPENAI_API_KEY": "fake-key-0123",
        "OPENAI_BASE_URL": fake.base_url,
        "OPENAI_MODEL": "fake-model",
        "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1",
    }
    argv = [str(agent_cli(AGENT)), "--yolo", "-o", "stream-json", "run the commands"]
    return run_cli(argv, g, env)


def victim(g: Guarded) -> Path:
    """A file that ``rm -rf`` of its folder would delete."""
    target = g.box.root / "keep" / "precious.txt"
    target.parent.mkdir(exist_ok=True)
    target.write_text("still here\n")
    return target


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Guarded, FakeChat]]:
    """The denied command, then a harmless one, in one session with the daemon up."""
    with guarded(tmp_path_factory.mktemp(AGENT), record=RECORDING) as g:
        _install(g)
        kept = victim(g)
        commands = [f"rm -rf {kept.parent}", f"echo made > {g.box.root / 'made.txt'}"]
        with FakeChat(commands) as fake:
            qwen(g, fake)
        if RECORDING:
            write_transcript(AGENT, g)
        yield g, fake


@pytest.mark.req("R-A50")
def test_the_denied_command_does_not_run_and_the_reason_reaches_the_model(
    session: tuple[Guarded, FakeChat],
) -> None:
    g, fake = session
    assert (g.box.root / "keep" / "precious.txt").read_text() == "still here\n"
    assert fake.tool_results()[0] == f"{REASON} (asked by qwen)"


@pytest.mark.req("R-A50")
def test_a_harmless_command_still_runs(session: tuple[Guarded, FakeChat]) -> None:
    g, fake = session
    assert (g.box.root / "made.txt").read_text() == "made\n"
    assert "run_shell_command" in fake.tool_names()


@pytest.mark.req("R-A51")
def test_with_the_daemon_down_and_unable_to_start_the_call_is_still_blocked(
    tmp_path: Path,
) -> None:
    with guarded(tmp_path) as g:
        _install(g)
        g.down()
        g.module.unlink()  # nothing to serve: no daemon can start for it
        kept = victim(g)
        with FakeChat([f"rm -rf {kept.parent}"]) as fake:
            qwen(g, fake)
        assert kept.read_text() == "still here\n"
        (result,) = fake.tool_results()
        assert result.startswith("hookd: the hookd daemon is not running")
