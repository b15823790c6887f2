"""The real Claude Code CLI, in print mode, reaching hooks through the settings that
``hookd install`` wrote: http hooks to the daemon, ``hookd up`` and the ``hookd call`` shim.

One long session covers most cases (one daemon, one CLI start-up); the model's tool calls
name what the hooks module (tests/hooks/daemon_cli.py) does with them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.daemon.cli_session import CliRun, installed, run_cli, stream_of
from tests.daemon.support import HOOKD, Box, hookd, wait_for_line
from tests.support.claude_cli import find_claude
from tests.support.fake_anthropic import (
    JsonObject,
    Script,
    Turn,
    assistant_turns,
    bash,
    run_tool_then_done,
    text,
    tool_calls,
)

pytestmark = pytest.mark.real_cli

RELOAD_WAIT_S = 30.0


def commands(tmp: Path) -> list[str]:
    return [
        f"touch {tmp}/allow-me",
        f"touch {tmp}/forbidden",
        f"touch {tmp}/rewrite-me",
        "echo ctx-me",
        f"touch {tmp}/perm-allow",
        f"touch {tmp}/perm-deny",
        f"touch {tmp}/raise-block",
        "echo raise-continue",
        f"touch {tmp}/slow-me",
    ]


@pytest.fixture(scope="module")
def big_session(tmp_path_factory: pytest.TempPathFactory) -> tuple[CliRun, Path, Box]:
    binary = find_claude()
    if binary is None:
        pytest.skip("the Claude Code CLI bundled with claude_agent_sdk is not installed")
    box = Box(tmp_path_factory.mktemp("cli"))
    box.env()
    out = box.root / "out"
    out.mkdir()
    with installed(box, "daemon_cli.py"):
        run = run_cli(binary, box, run_tool_then_done(commands(out)))
        status = hookd(box, "status")
    assert run.returncode == 0, run.stderr + stream_of(run)
    (box.root / "status.txt").write_text(status.stdout)
    return run, out, box


def result_for(run: CliRun, index: int) -> tuple[bool, str]:
    block = run.tool_results()[index]
    return bool(block.get("is_error")), run.tool_result_text(index)


@pytest.mark.req("R-D10")
def test_allow_runs_the_tool(big_session: tuple[CliRun, Path, Box]) -> None:
    run, out, _ = big_session
    assert (out / "allow-me").exists()
    assert result_for(run, 0)[0] is False


@pytest.mark.req("R-D10")
def test_deny_blocks_the_tool(big_session: tuple[CliRun, Path, Box]) -> None:
    run, out, _ = big_session
    assert not (out / "forbidden").exists()
    is_error, content = result_for(run, 1)
    assert is_error and "forbidden by the daemon" in content


@pytest.mark.req("R-D10")
def test_updated_input_rewrites_the_command(big_session: tuple[CliRun, Path, Box]) -> None:
    _, out, _ = big_session
    assert (out / "rewritten").exists()
    assert not (out / "rewrite-me").exists()


@pytest.mark.req("R-D10")
def test_additional_context_reaches_the_model(big_session: tuple[CliRun, Path, Box]) -> None:
    run, _, _ = big_session
    context = "PreToolUse:Bash hook additional context: ctx-from-daemon"
    assert any(context in t for t in run.api_texts(4))
    assert not any(context in t for t in run.api_texts(3))


@pytest.mark.req("R-D11")
def test_permission_request_allow_and_deny(big_session: tuple[CliRun, Path, Box]) -> None:
    run, out, _ = big_session
    assert (out / "perm-allow").exists()
    assert not (out / "perm-deny").exists()
    is_error, content = result_for(run, 5)
    assert is_error and "permission refused by the daemon" in content


@pytest.mark.req("R-D12")
def test_raising_hook_under_block_and_continue(big_session: tuple[CliRun, Path, Box]) -> None:
    run, out, _ = big_session
    assert not (out / "raise-block").exists()
    is_error, content = result_for(run, 6)
    assert is_error and "hookd: hook explode_block raised an exception: boom-block" in content
    is_error, content = result_for(run, 7)
    assert not is_error and "raise-continue" in content


@pytest.mark.req("R-D12")
def test_hook_slower_than_its_timeout_is_answered_by_hookd(
    big_session: tuple[CliRun, Path, Box],
) -> None:
    run, out, _ = big_session
    assert not (out / "slow-me").exists()
    is_error, content = result_for(run, 8)
    assert is_error and "hookd: hook dawdle timed out" in content


@pytest.mark.req("R-D13")
def test_stop_is_blocked_once(big_session: tuple[CliRun, Path, Box]) -> None:
    run, _, _ = big_session
    feedback = [r for r in run.api.message_requests if "keep-going-from-daemon" in json.dumps(r)]
    assert len(feedback) == 1  # the second Stop (stop_hook_active) lets the session end
    assert run.result["subtype"] == "success"


@pytest.mark.req("R-D14")
def test_session_start_context_through_the_shim(big_session: tuple[CliRun, Path, Box]) -> None:
    run, _, _ = big_session
    assert any("session-note-from-hookd" in t for t in run.api_texts(0))


@pytest.mark.req("R-D15")
def test_status_counts_the_session_calls(big_session: tuple[CliRun, Path, Box]) -> None:
    _, _, box = big_session
    status = (box.root / "status.txt").read_text()
    rows = {line.split()[2]: line.split() for line in status.splitlines()[5:] if line.strip()}
    assert rows["decide"][1] == "PreToolUse" and int(rows["decide"][3]) == len(commands(box.root))
    assert int(rows["explode_block"][4]) == 1
    assert int(rows["dawdle"][5]) == 1
    assert int(rows["note"][3]) == 1 and rows["note"][1] == "SessionStart"
    assert int(rows["keep_going"][3]) == 2


@pytest.mark.req("R-D08", "R-D16")
def test_project_scope_prompt_block_through_the_shim(claude: Path, box: Box) -> None:
    env = {**box.env(), "PATH": f"{Path(HOOKD).parent}{os.pathsep}{os.environ['PATH']}"}
    with installed(box, "daemon_cli.py", "--scope", "project", env=env):
        run = run_cli(
            claude, box, run_tool_then_done([]), prompt="please block-this-prompt", env=env
        )
    assert run.returncode == 0, run.stderr
    assert "UserPromptSubmit operation blocked by hook" in run.result["result"]
    assert "prompt-blocked-by-daemon" in run.result["result"]
    assert not any("block-this-prompt" in json.dumps(r) for r in run.api.message_requests)


def reload_then(box: Box, module: Path, second: Turn) -> Script:
    """Turn 0 runs ``echo first``; before turn 1 the hooks file is replaced with v2 (as an
    editor would) and, once the daemon has reloaded it, turn 1 asks for ``second``."""
    v2 = Path(__file__).resolve().parents[1] / "hooks" / "daemon_reload_v2.py"

    def script(request: JsonObject) -> Turn:
        if not request.get("tools"):
            return text("done")
        match assistant_turns(request):
            case 0:
                return tool_calls(bash("echo first"))
            case 1:
                module.write_text(v2.read_text())
                wait_for_reload(box)
                return second
        return text("done")

    return script


def wait_for_reload(box: Box) -> None:
    (state,) = box.daemon_dirs()
    wait_for_line(state / "daemon.log", "reload.done", RELOAD_WAIT_S)


@pytest.mark.req("R-D30")
def test_hot_reload_between_two_tool_calls(claude: Path, box: Box, tmp_path: Path) -> None:
    made = tmp_path / "after-reload"
    with installed(box, "daemon_reload_v1.py") as module:
        run = run_cli(claude, box, reload_then(box, module, tool_calls(bash(f"touch {made}"))))
    assert run.returncode == 0, run.stderr
    assert result_for(run, 0)[0] is False
    is_error, content = result_for(run, 1)
    assert is_error and "reloaded: denied after 1 earlier call(s)" in content
    assert not made.exists()
