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
from tests.support.fake_chat import FakeChat, JsonObject

AGENT = "qwen"
#: Where ``hookd install --agent qwen`` writes, in the project.
CONFIG = ".qwen/settings.json"


def _install_path(g: Guarded) -> Path:
    return g.box.project / CONFIG


def _install(g: Guarded) -> Path:
    """``hookd install --agent qwen MODULE``: the project's ``.qwen/settings.json``."""
    g.install(AGENT)
    return _install_path(g)


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


def tool_results(stream: str) -> list[str]:
    """The tool results in Qwen's stream-json output (what it gives the model)."""
    events = [json.loads(line) for line in stream.splitlines() if line.startswith("{")]
    return [block["content"] for e in events if e.get("type") == "user"
            for block in e["message"]["content"] if block.get("type") == "tool_result"]  # fmt: skip


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
        kept = victim(g)

        def daemon_gone(request: JsonObject) -> None:  # after the prompt's hook, before the tool
            if g.module.exists():
                g.down()
                g.module.unlink()  # nothing to serve: the shim's `hookd up` cannot start one

        with FakeChat([f"rm -rf {kept.parent}"], on_request=daemon_gone) as fake:
            stream = qwen(g, fake)
        assert kept.read_text() == "still here\n"
        (result,) = tool_results(stream)
        assert result.startswith("hookd: the hookd daemon is not running")
        assert "did not start" in result
        # Qwen sends the tool's result on after a UserPromptSubmit, which the shim also refuses:
        # the model is not asked again.
        assert len(fake.requests) == 1


@pytest.mark.req("R-A52")
def test_uninstall_leaves_the_users_own_hooks_as_they_were(tmp_path: Path) -> None:
    with guarded(tmp_path) as g:
        log = g.box.root / "mine.log"
        own = {"$version": 4,
         "hooks": {"PreToolUse": [{"matcher": "run_shell_command", "hooks": [
             {"type": "command", "command": f"echo mine >> {log}", "timeout": 5}]}]}}  # fmt: skip
        config = _install_path(g)
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(json.dumps(own, indent=2))
        _install(g)
        kept = victim(g)
        with FakeChat([f"rm -rf {kept.parent}", "echo hi"]) as fake:
            qwen(g, fake)
        assert kept.exists()  # hookd's entry and the user's run side by side
        assert log.read_text() == "mine\nmine\n"
        g.uninstall(AGENT)
        assert json.loads(config.read_text()) == own
