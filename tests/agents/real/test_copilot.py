"""The real Copilot CLI (pinned ``@github/copilot``), offline against a fake Chat Completions
server, guarded by hookd: its ``preToolUse`` command hook runs the shim to a real daemon.

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
from tests.support.agent_clis import agent_cli, shared_cache
from tests.support.fake_chat import FakeChat, JsonObject

AGENT = "copilot"
#: Where ``hookd install --agent copilot`` writes, in the project.
CONFIG = ".github/hooks/hookd.json"


def _install_path(g: Guarded) -> Path:
    return g.box.project / CONFIG


def _install(g: Guarded) -> Path:
    """``hookd install --agent copilot MODULE``: the project's ``.github/hooks/hookd.json``."""
    g.install(AGENT)
    return _install_path(g)


def copilot(g: Guarded, fake: FakeChat) -> str:
    """One ``copilot -p`` session against ``fake``; its JSON-lines stdout."""
    env = {
        "COPILOT_OFFLINE": "true",
        "COPILOT_PROVIDER_BASE_URL": fake.base_url,
        "COPILOT_PROVIDER_TYPE": "openai",
        "COPILOT_PROVIDER_API_KEY": "fake-key-0123",
        "COPILOT_MODEL": "fake-model",
        "COPILOT_ALLOW_ALL": "true",
        "COPILOT_AUTO_UPDATE": "false",
    }
    argv = [str(agent_cli(AGENT)), "-p", "run the commands", "--output-format", "json"]
    # Where it unpacks its 200 MB package: once for every run, not once per HOME.
    with shared_cache("copilot-xdg-cache") as cache:
        return run_cli(argv, g, {**env, "XDG_CACHE_HOME": str(cache)})


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
            copilot(g, fake)
        if RECORDING:
            write_transcript(AGENT, g)
        yield g, fake


@pytest.mark.req("R-A40")
def test_the_denied_command_does_not_run_and_the_reason_reaches_the_model(
    session: tuple[Guarded, FakeChat],
) -> None:
    g, fake = session
    assert (g.box.root / "keep" / "precious.txt").read_text() == "still here\n"
    denied = fake.tool_results()[0]
    assert denied == f"Denied by preToolUse hook: {REASON} (asked by copilot)"


@pytest.mark.req("R-A40")
def test_a_harmless_command_still_runs(session: tuple[Guarded, FakeChat]) -> None:
    g, fake = session
    assert (g.box.root / "made.txt").read_text() == "made\n"
    assert "completed with exit code 0" in fake.tool_results()[1]
    assert fake.tool_names()[0] == "bash"


@pytest.mark.req("R-A41")
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
            copilot(g, fake)
        assert kept.read_text() == "still here\n"
        (result,) = fake.tool_results()
        assert result == "Denied by preToolUse hook: hook exited with code 2"


@pytest.mark.req("R-A43")
def test_uninstall_leaves_the_users_own_hooks_as_they_were(tmp_path: Path) -> None:
    with guarded(tmp_path) as g:
        log = g.box.root / "mine.log"
        own = {"version": 1, "disableAllHooks": False,
         "hooks": {"preToolUse": [{"type": "command", "bash": f"echo mine >> {log}",
                                   "timeoutSec": 5}]}}  # fmt: skip
        config = _install_path(g)
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(json.dumps(own, indent=2))
        _install(g)
        kept = victim(g)
        with FakeChat([f"rm -rf {kept.parent}", "echo hi"]) as fake:
            copilot(g, fake)
        assert kept.exists()  # hookd's entry and the user's run side by side
        assert log.read_text() == "mine\nmine\n"
        g.uninstall(AGENT)
        assert json.loads(config.read_text()) == own
