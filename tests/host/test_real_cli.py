"""``hookd run`` drives the real Claude Code CLI, offline against the fake API.

Each test runs ``python -m hookd run`` in front of the CLI bundled with
claude_agent_sdk and checks what the CLI did: the files its tools made, the
requests the fake API received, the messages and result it printed (relayed
on hookd's stdout), and the exit code.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest
import trio

from tests.support.claude_cli import user_message
from tests.support.fake_anthropic import (
    FakeAnthropic,
    JsonObject,
    Script,
    Turn,
    bash,
    message_texts,
    n_tool_calls,
    run_tool_then_done,
    text,
    tool_calls,
)
from tests.support.host_run import HostRun, Recording, bare_cli, run_hookd

pytestmark = pytest.mark.real_cli

CLI_TIMEOUT_TEXT = "did not respond before its timeout"
RECORD_DIR_ENV = "HOOKD_HOST_TRANSCRIPTS"


#: What each recorded scenario shows, and the requirements its transcript covers.
SCENARIOS: dict[str, tuple[str, tuple[str, ...]]] = {
    "allow": ("PreToolUse allows the Bash call; the tool runs", ("R-202", "R-205", "R-030")),
    "deny": ("PreToolUse denies; the tool does not run, the model is told why", ("R-205",)),
    "rewrite": ("PreToolUse rewrites the command (updatedInput); that command runs", ("R-205",)),
    "context": ("PreToolUse adds context; it reaches the model's next request", ("R-205",)),
    "raise_block": (
        "a hook raises under on_failure=block: answered with a deny; the tool does not run",
        ("R-072", "R-081"),
    ),
    "raise_continue": (
        "a hook raises under on_failure=continue: an error answer; the CLI asks can_use_tool, "
        "which allows a rewritten command",
        ("R-072", "R-082", "R-215"),
    ),
    "slow": (
        "a hook slower than its 2 s timeout: hookd answers a block before the CLI gives up",
        ("R-071", "R-081"),
    ),
    "abort": (
        "HookAbortError: continue false and a deny; the turn stops without another model call",
        ("R-083",),
    ),
    "permission_allow": (
        "can_use_tool returns PermissionResultAllow with a rewritten command; it runs",
        ("R-215",),
    ),
    "permission_deny": (
        "can_use_tool returns PermissionResultDeny; the tool does not run",
        ("R-215",),
    ),
    "relayed_prompts": (
        "two prompts relayed from hookd's stdin; stdin stays open until the CLI is idle, so the "
        "second prompt's hook is still answered",
        ("R-204", "R-206"),
    ),
}


def transcript(scenario: str) -> Recording | None:
    """How to record ``scenario`` (with ``hookd record``), if recording was asked for.

    ``HOOKD_HOST_TRANSCRIPTS=conformance/transcripts pytest tests/test_host.py``
    re-records the host-mode conformance transcripts.
    """
    folder = os.environ.get(RECORD_DIR_ENV)
    if not folder:
        return None
    what, requirements = SCENARIOS[scenario]
    description = f"hookd run driving Claude Code 2.1.330: {what}."
    return Recording(Path(folder).resolve() / f"host_{scenario}.jsonl", description, requirements)


async def run_one_command(
    claude: Path, tmp_path: Path, scenario: str, command: str, **kwargs: Any
) -> HostRun:
    """One session under ``tests/hooks/host_SCENARIO.py``: the model runs ``command`` with
    Bash, then says "done"."""
    with FakeAnthropic(run_tool_then_done([command])) as api:
        return await run_hookd(
            f"host_{scenario}.py",
            bare_cli(claude),
            api,
            tmp_path,
            record=transcript(kwargs.pop("record_as", scenario)),
            **kwargs,
        )


def assert_completed(run: HostRun, api_requests: int = 2) -> None:
    """The CLI ended the turn normally and exited 0, after ``api_requests`` model calls."""
    assert run.returncode == 0, run.stderr
    assert run.result["subtype"] == "success"
    assert run.result["is_error"] is False
    assert run.result["result"] == "done"
    assert len(run.api.message_requests) == api_requests
    assert run.api.errors == []


def single_tool_result(run: HostRun) -> JsonObject:
    (result,) = run.tool_results()
    return result


def second_request_results(run: HostRun) -> list[str]:
    """The tool_result texts of the second request the model received."""
    return [t for t in message_texts(run.api.message_requests[1], role="user") if t]


@pytest.mark.req("R-202", "R-205", "R-207", "R-211")
async def test_allow_runs_the_tool_and_shows_progress(claude: Path, tmp_path: Path) -> None:
    made = tmp_path / "made_by_tool"
    run = await run_one_command(
        claude, tmp_path, "allow", f"touch {made}", args=["--progress", "always"]
    )
    assert_completed(run)
    assert made.exists()
    result = single_tool_result(run)
    assert result["is_error"] is False
    assert any(t.startswith("(Bash completed with no output)") for t in run.api_texts(1))
    assert all("sdk_host_only" not in m for m in run.messages)
    assert run.of_type("control_response") == []
    assert f"  > Bash: touch {made}" in run.stderr
    assert "    PreToolUse Bash [hook_1] -> allow: allowed by hookd (" in run.stderr
    assert "= done: done (2 turns" in run.stderr


@pytest.mark.req("R-205")
async def test_deny_keeps_the_tool_from_running(claude: Path, tmp_path: Path) -> None:
    made = tmp_path / "made_by_tool"
    run = await run_one_command(claude, tmp_path, "deny", f"touch {made}")
    assert_completed(run)
    assert not made.exists()
    result = single_tool_result(run)
    assert result["is_error"] is True
    assert f"denied by hookd: touch {made}" in result["content"]
    assert any(f"denied by hookd: touch {made}" in t for t in run.api_texts(1))
    (denial,) = run.result["permission_denials"]
    assert denial["tool_input"]["command"] == f"touch {made}"


@pytest.mark.req("R-205")
async def test_updated_input_rewrites_the_command_that_runs(claude: Path, tmp_path: Path) -> None:
    requested = tmp_path / "file.requested"
    rewritten = tmp_path / "file.rewritten"
    run = await run_one_command(claude, tmp_path, "rewrite", f"touch {requested}")
    assert_completed(run)
    assert rewritten.exists()
    assert not requested.exists()
    assert single_tool_result(run)["is_error"] is False


@pytest.mark.req("R-205")
async def test_additional_context_reaches_the_model(claude: Path, tmp_path: Path) -> None:
    made = tmp_path / "made_by_tool"
    run = await run_one_command(claude, tmp_path, "context", f"touch {made}")
    assert_completed(run)
    assert made.exists()
    context = "PreToolUse:Bash hook additional context: ctx-from-hookd: the tests live in tests/"
    assert any(context in t for t in run.api_texts(1))
    assert not any("ctx-from-hookd" in t for t in run.api_texts(0))


@pytest.mark.req("R-081", "R-205")
async def test_raising_hook_under_block_denies_the_tool(claude: Path, tmp_path: Path) -> None:
    made = tmp_path / "made_by_tool"
    run = await run_one_command(claude, tmp_path, "raise_block", f"touch {made}")
    assert_completed(run)
    assert not made.exists()
    result = single_tool_result(run)
    assert result["is_error"] is True
    assert "hookd: hook explode raised an exception: boom from the block hook" in result["content"]
    assert len(run.result["permission_denials"]) == 1


@pytest.mark.req("R-082", "R-200", "R-215")
async def test_raising_hook_under_continue_falls_through_to_can_use_tool(
    claude: Path, tmp_path: Path
) -> None:
    requested = tmp_path / "file.requested"
    permitted = tmp_path / "file.permitted"
    run = await run_one_command(claude, tmp_path, "raise_continue", f"touch {requested}")
    assert_completed(run)
    assert permitted.exists()  # can_use_tool was asked, allowed, and rewrote the command
    assert not requested.exists()
    assert single_tool_result(run)["is_error"] is False
    (notice,) = [m for m in run.of_type("system") if m.get("tag") == "hook_callback_failed"]
    assert "Its answer was treated as empty" in notice["content"]
    assert "boom from the continue hook" in run.stderr  # the CLI reports hookd's error text
    started = next(log for log in run.logs if log["msg"] == "cli.started")
    added = ["--output-format", "stream-json", "--input-format", "stream-json", "--verbose"]
    assert started["argv"][-7:] == [*added, "--permission-prompt-tool", "stdio"]


@pytest.mark.req("R-071", "R-081")
async def test_slow_hook_is_answered_by_hookd_before_the_cli_gives_up(
    claude: Path, tmp_path: Path
) -> None:
    made = tmp_path / "made_by_tool"
    run = await run_one_command(claude, tmp_path, "slow", f"touch {made}")
    assert_completed(run)
    assert not made.exists()
    result = single_tool_result(run)
    assert result["is_error"] is True
    assert "hookd: hook dawdle timed out" in result["content"]
    assert CLI_TIMEOUT_TEXT not in json.dumps(run.messages)
    assert [log for log in run.logs if log["msg"] == "request.cancelled"] == []
    (completed,) = [log for log in run.logs if log["msg"] == "request.completed"]
    assert completed["outcome"] == "blocked:timeout"


@pytest.mark.req("R-083")
async def test_hook_abort_error_stops_the_session(claude: Path, tmp_path: Path) -> None:
    made = tmp_path / "made_by_tool"
    run = await run_one_command(claude, tmp_path, "abort", f"touch {made}")
    assert run.returncode == 4, run.stderr  # a hook stopped the run
    assert not made.exists()
    assert len(run.api.message_requests) == 1  # the model was not asked again
    assert run.result["terminal_reason"] == "hook_stopped"
    assert "stopped by hookd: policy violation" in single_tool_result(run)["content"]


@pytest.mark.req("R-215")
async def test_can_use_tool_allow_with_updated_input(claude: Path, tmp_path: Path) -> None:
    requested = tmp_path / "file.requested"
    permitted = tmp_path / "file.permitted"
    run = await run_one_command(
        claude, tmp_path, "permission", f"touch {requested}", record_as="permission_allow"
    )
    assert_completed(run)
    assert permitted.exists()
    assert not requested.exists()
    assert run.result["permission_denials"] == []


@pytest.mark.req("R-215")
async def test_can_use_tool_deny(claude: Path, tmp_path: Path) -> None:
    forbidden = tmp_path / "file.forbidden"
    run = await run_one_command(
        claude, tmp_path, "permission", f"touch {forbidden}", record_as="permission_deny"
    )
    assert_completed(run)
    assert not forbidden.exists()
    result = single_tool_result(run)
    assert result["is_error"] is True
    assert f"forbidden by hookd: touch {forbidden}" in result["content"]
    assert len(run.result["permission_denials"]) == 1


def counting(script: Script, wanted: int) -> tuple[Script, threading.Event]:
    """``script``, plus an event set once it has answered ``wanted`` requests."""
    seen = threading.Event()
    count = 0
    lock = threading.Lock()

    def counted(request: JsonObject) -> Turn:
        nonlocal count
        turn = script(request)
        with lock:
            count += 1
            if count >= wanted:
                seen.set()
        return turn

    return counted, seen


@pytest.mark.req("R-070", "R-208")
async def test_hundred_tool_calls_with_a_stalled_stdout_reader(
    claude: Path, tmp_path: Path
) -> None:
    calls = 100
    script, finished = counting(n_tool_calls(calls), calls + 1)

    async def read_only_at_the_end(stream: trio.abc.ReceiveStream, run: HostRun) -> None:
        # Nobody reads hookd's stdout until the model has been called for the last time:
        # the control requests of all 100 tool calls must be answered meanwhile.
        await trio.to_thread.run_sync(finished.wait, 120.0)
        assert finished.is_set()
        chunks = []
        while data := await stream.receive_some(1 << 16):
            chunks.append(data)
        run.stdout = b"".join(chunks)

    with FakeAnthropic(script) as api:
        run = await run_hookd(
            "host_many.py", bare_cli(claude), api, tmp_path, read_stdout=read_only_at_the_end
        )
    assert_completed(run, api_requests=calls + 1)
    results = run.tool_results()
    assert [r["content"] for r in results] == [str(i) for i in range(calls)]
    last = run.api_texts(calls)
    assert any("post-tool-use call 100" in t for t in last)
    assert len(run.stdout) > 1 << 16  # more than a pipe holds: hookd buffered it


def second_prompt_runs_a_tool(command: str) -> Script:
    """The first prompt gets "done"; the second prompt gets one Bash call, then "done"."""

    def script(request: JsonObject) -> Turn:
        texts = message_texts(request, role="user")
        second = any("second prompt" in t for t in texts)
        ran = any(t.startswith("(Bash completed") for t in texts)
        return tool_calls(bash(command)) if second and not ran else text("done")

    return script


@pytest.mark.req("R-204", "R-206")
async def test_relayed_prompts_keep_stdin_open_until_the_cli_is_idle(
    claude: Path, tmp_path: Path
) -> None:
    made = tmp_path / "made_by_tool"
    lines = [user_message("first prompt"), user_message("second prompt")]
    stdin = b"".join(json.dumps(m).encode() + b"\n" for m in lines)
    with FakeAnthropic(second_prompt_runs_a_tool(f"touch {made}")) as api:
        run = await run_hookd(
            "host_allow.py",
            bare_cli(claude),
            api,
            tmp_path,
            prompt=None,
            stdin=stdin,
            record=transcript("relayed_prompts"),
        )
    assert run.returncode == 0, run.stderr
    assert made.exists()  # the second prompt's tool call still had its hook answered
    assert single_tool_result(run)["is_error"] is False
    # Two turns (one result each) as this CLI does it; one merged turn would be fine too.
    assert [r["result"] for r in run.of_type("result")][-1] == "done"
    assert [log["outcome"] for log in run.logs if log["msg"] == "request.completed"] == ["ok"]


@pytest.mark.req("R-216")
async def test_can_use_tool_without_a_callback_is_refused(claude: Path, tmp_path: Path) -> None:
    made = tmp_path / "made_by_tool"
    cli = [*bare_cli(claude), "--permission-prompt-tool", "stdio"]
    with FakeAnthropic(run_tool_then_done([f"touch {made}"])) as api:
        run = await run_hookd("host_undecided.py", cli, api, tmp_path)
    assert_completed(run)
    assert not made.exists()
    result = single_tool_result(run)
    assert result["is_error"] is True
    assert result["content"].endswith("Error: canUseTool callback is not provided")
    (completed,) = [log for log in run.logs if log.get("method") == "can_use_tool"]
    assert completed["outcome"] == "unsupported"
