"""The real CLI when hookd cannot answer: the daemon down, or the settings' token wrong.

With the default install a guarded tool call is blocked, never silently allowed; with
``--fail-open`` it goes ahead as if there were no hook.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.daemon.cli_session import CliRun, installed, run_cli
from tests.daemon.support import Box, hookd
from tests.support.fake_anthropic import run_tool_then_done

pytestmark = pytest.mark.real_cli

SETTINGS = Path(".claude") / "settings.local.json"


def only_result(run: CliRun) -> tuple[bool, str]:
    (block,) = run.tool_results()
    return bool(block.get("is_error")), run.tool_result_text(0)


def break_module(box: Box, module: Path) -> None:
    """Stop the daemon and leave a module that cannot load: nothing can start it again."""
    assert hookd(box, "down").returncode == 0
    module.write_text("raise RuntimeError('this hooks module cannot load')\n")


@pytest.mark.req("R-D17")
def test_wrong_token_blocks_instead_of_allowing(claude: Path, box: Box) -> None:
    with installed(box, "daemon_guard.py"):
        path = box.project / SETTINGS
        settings = json.loads(path.read_text())
        for groups in settings["hooks"].values():
            for group in groups:
                for handler in group["hooks"]:
                    if handler["type"] == "http":
                        handler["headers"]["Authorization"] = "Bearer not-the-token"
        path.write_text(json.dumps(settings))
        run = run_cli(claude, box, run_tool_then_done(["echo allow-me"]))
    assert run.returncode == 0, run.stderr
    is_error, content = only_result(run)
    assert is_error
    assert 'blocking because onFailure is "block"' in content and "401" in content


@pytest.mark.req("R-D18")
def test_daemon_down_blocks_the_prompt_by_default(claude: Path, box: Box) -> None:
    with installed(box, "daemon_guard.py") as module:
        break_module(box, module)
        run = run_cli(claude, box, run_tool_then_done(["echo while-down"]))
    assert run.returncode == 0, run.stderr
    assert run.tool_results() == [] and run.api.message_requests == []
    reason = run.result["result"]
    assert "UserPromptSubmit operation blocked by hook" in reason
    assert "this hooks module cannot load" in reason  # the load error, where the user looks


@pytest.mark.req("R-D18")
def test_daemon_down_with_fail_open_lets_the_tool_run(claude: Path, box: Box) -> None:
    with installed(box, "daemon_guard.py", "--fail-open") as module:
        break_module(box, module)
        run = run_cli(claude, box, run_tool_then_done(["echo while-down"]))
    assert run.returncode == 0, run.stderr
    is_error, content = only_result(run)
    assert not is_error and content.strip() == "while-down"
