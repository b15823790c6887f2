"""The real CLI with another program holding the daemon's port: the guarded call does not run.

The stranger answers ``{}`` with 200 to everything (so the CLI's http PreToolUse hook, which
cannot tell it from the daemon, would let the tool run); the prompt's ``hookd up`` finds it
cannot prove the module's key and exits 2, so Claude Code drops the prompt before any
model call.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.daemon.cli_session import installed, run_cli, stream_of
from tests.daemon.support import HOOKD, Box, hookd, squatter
from tests.support.fake_anthropic import run_tool_then_done

pytestmark = pytest.mark.real_cli

SETTINGS = Path(".claude") / "settings.local.json"


def allow_bash(box: Box) -> int:
    """Let Bash run without a permission prompt (so only the hooks stand in its way); the port."""
    path = box.project / SETTINGS
    settings = json.loads(path.read_text())
    settings["permissions"] = {"allow": ["Bash"]}
    path.write_text(json.dumps(settings))
    (state,) = box.daemon_dirs()
    port = json.loads((state / "install.json").read_text())["port"]
    assert isinstance(port, int)
    return port


@pytest.mark.req("R-D50")
def test_a_squatter_on_the_port_decides_no_tool_call(claude: Path, box: Box) -> None:
    victim = box.root / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("precious")
    with installed(box, "daemon_guard.py"):
        port = allow_bash(box)
        assert hookd(box, "down").returncode == 0
        with squatter(port) as stranger:
            run = run_cli(claude, box, run_tool_then_done([f"rm -rf {victim}"]))
            stranger.kill()
            assert stranger.stdout is not None
            seen = stranger.stdout.read()
    assert (victim / "keep.txt").read_text() == "precious", stream_of(run)
    assert run.tool_results() == []
    assert run.api.message_requests == []  # the prompt never reached the model
    assert "held by another program" in stream_of(run) + run.stderr
    # No tool's or prompt's input was posted to it either. Local scope routes every event to
    # the daemon as an http hook (R-D02), so the CLI's own SessionEnd post, which hookd cannot
    # check, may reach it when the blocked session ends, with a token rotated at the next start.
    posted = [line.split()[2] for line in seen.splitlines() if line.startswith("request POST")]
    assert all(path.startswith("/hook/SessionEnd?") for path in posted), seen


@pytest.mark.req("R-D50")
def test_without_the_squatter_the_same_session_runs_the_tool(claude: Path, box: Box) -> None:
    """The control: the setup above lets ``rm -rf`` through when the daemon holds the port."""
    victim = box.root / "victim"
    victim.mkdir()
    with installed(box, "daemon_guard.py"):
        allow_bash(box)
        run = run_cli(claude, box, run_tool_then_done([f"rm -rf {victim}"]))
    assert run.returncode == 0, run.stderr
    assert not victim.exists(), stream_of(run)


@pytest.mark.req("R-D51")
def test_a_running_session_follows_the_new_token_of_a_restarted_daemon(
    claude: Path, box: Box
) -> None:
    """Mid-session the daemon is stopped and started again (a new token, the settings
    rewritten); the session's next guarded call reaches the new daemon and is answered by it."""
    with installed(box, "daemon_guard.py") as module:
        port = allow_bash(box)
        before = box.token()
        # the sleep leaves Claude Code's settings watcher its debounce (under a second)
        up = f"{HOOKD} up --quiet {module} --port {port}"
        restart = f"{HOOKD} down && {up} && sleep 3 && echo restarted"
        run = run_cli(claude, box, run_tool_then_done([restart, "echo forbidden"]))
        after = box.token()
    assert run.returncode == 0, run.stderr
    assert after != before
    assert run.tool_result_text(0).strip().endswith("restarted"), stream_of(run)
    assert run.tool_results()[1].get("is_error")
    assert "forbidden by the daemon guard" in run.tool_result_text(1), stream_of(run)
