"""The real CLI with what ``hookd install`` wrote, after the module changes or the daemon goes:
hooks added by a later save are called, and the first prompt after the daemon stopped goes
through, guarded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.daemon.cli_session import HOOKS_DIR, installed, run_cli, run_cli_prompts
from tests.daemon.support import Box, hookd, wait_for_line
from tests.support.fake_anthropic import (
    JsonObject,
    Script,
    ToolUse,
    Turn,
    assistant_turns,
    bash,
    message_texts,
    text,
    tool_calls,
)

pytestmark = pytest.mark.real_cli

RELOAD_WAIT_S = 30.0
POST_CONTEXT = "post-context-from-an-event-added-after-install"


def save_v2_after_first_call(box: Box, module: Path, written: Path) -> Script:
    """Turn 0 runs ``echo first`` under v1 (Bash only); then v2 is saved over the module and,
    once the daemon has loaded it, turn 1 writes a file and turn 2 runs ``echo second``."""
    turns = {
        1: tool_calls(ToolUse("Write", {"file_path": str(written), "content": "x\n"})),
        2: tool_calls(bash("echo second")),
    }

    def script(request: JsonObject) -> Turn:
        if not request.get("tools"):
            return text("done")
        n = assistant_turns(request)
        if n == 0:
            return tool_calls(bash("echo first"))
        if n == 1:
            module.write_text((HOOKS_DIR / "daemon_route_v2.py").read_text())
            (state,) = box.daemon_dirs()
            wait_for_line(state / "daemon.log", "reload.done", RELOAD_WAIT_S)
        return turns.get(n, text("done"))

    return script


@pytest.mark.req("R-D02", "R-D60")
def test_a_matcher_and_an_event_added_after_install_take_effect(
    claude: Path, box: Box, tmp_path: Path
) -> None:
    written = box.project / "written.txt"
    with installed(box, "daemon_route_v1.py") as module:
        run = run_cli(claude, box, save_v2_after_first_call(box, module, written))
    assert run.returncode == 0, run.stderr
    results = run.tool_results()
    assert len(results) == 3, results
    assert not results[0].get("is_error")
    assert results[1].get("is_error") and "writes refused by a matcher added after install" in (
        run.tool_result_text(1)
    )
    assert not written.exists()
    assert not any(POST_CONTEXT in t for t in run.api_texts(2))  # PostToolUse came with v2
    assert any(POST_CONTEXT in t for t in run.api_texts(3))


@pytest.mark.req("R-D05", "R-D61")
def test_first_prompt_after_the_daemon_stopped_goes_through_guarded(claude: Path, box: Box) -> None:
    def stop_the_daemon(_: int) -> None:
        assert "stopped pid" in hookd(box, "down").stdout

    with installed(box, "daemon_prompt.py"):
        run = run_cli_prompts(
            claude, box, lambda request: text("done"), ["first prompt", "second prompt"],
            stop_the_daemon,
        )  # fmt: skip
        status = hookd(box, "status", "--json")
    assert run.returncode == 0, run.stderr
    results = run.of_type("result")
    assert [(r["subtype"], r["result"]) for r in results] == [("success", "done")] * 2, results
    last = run.api.message_requests[-1]
    assert "second prompt" in json.dumps(last)
    contexts = [t for t in message_texts(last) if "prompt-context-from-the-daemon" in t]
    assert len(contexts) == 2  # the first prompt's, and the second's from the new daemon
    (daemon,) = json.loads(status.stdout)
    (row,) = [h for h in daemon["hooks"] if h["event"] == "UserPromptSubmit"]
    assert row["calls"] == 1
