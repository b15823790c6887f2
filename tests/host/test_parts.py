"""``hookd run`` without the real CLI: its parts, and the process against a scripted fake CLI."""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from hookd.cli.run import add_run_parser, cli_command
from hookd.host.argv import CommandError, complete_command
from hookd.host.ending import RunRecord, Watch
from hookd.host.lifetime import RunLifetime
from hookd.host.progress import Progress, describe_answer
from hookd.host.relay import CliInput
from hookd.transcript.format import load
from hookd.transcript.replay import ReplayConfig, replay

HOOKS = Path(__file__).resolve().parents[1] / "hooks"
FAKE_CLI = Path(__file__).resolve().parents[1] / "support" / "fake_cli.py"
STREAM = ["--output-format", "stream-json", "--input-format", "stream-json"]
ASK = ["--permission-prompt-tool", "stdio"]

# ------------------------------------------------------------------ the command line


@pytest.mark.parametrize(
    ("argv", "can_use_tool", "expected"),
    [
        ([], False, ["claude", *STREAM, "--verbose"]),
        (["claude", "--model", "m"], False, ["claude", "--model", "m", *STREAM, "--verbose"]),
        (
            ["node", "cli.js", "--verbose", "--output-format=stream-json"],
            True,
            ["node", "cli.js", "--verbose", "--output-format=stream-json", *STREAM[2:], *ASK],
        ),
        (["claude", "--", "prompt"], False, ["claude", *STREAM, "--verbose", "--", "prompt"]),
        (
            ["claude", *STREAM, "--verbose", "--permission-prompt-tool", "mcp__x__ask"],
            True,
            ["claude", *STREAM, "--verbose", "--permission-prompt-tool", "mcp__x__ask"],
        ),
    ],
)
@pytest.mark.req("R-200")
def test_complete_command_adds_only_missing_flags(
    argv: list[str], can_use_tool: bool, expected: list[str]
) -> None:
    assert complete_command(argv, can_use_tool=can_use_tool) == expected


@pytest.mark.parametrize(
    "argv", [["claude", "--output-format", "text"], ["claude", "--input-format=text"]]
)
@pytest.mark.req("R-200")
def test_complete_command_refuses_other_formats(argv: list[str]) -> None:
    with pytest.raises(CommandError, match="hookd run needs"):
        complete_command(argv, can_use_tool=False)


def test_run_parser_fits_under_the_hookd_parser() -> None:
    parser = argparse.ArgumentParser(prog="hookd")
    add_run_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["run", "--hooks", "h.py", "-p", "hi", "--", "claude", "-p", "x"])
    assert args.command == "run"
    assert (args.hooks, args.prompt, args.timeout, args.validate) == ("h.py", "hi", 30.0, True)
    assert cli_command(args) == ["claude", "-p", "x"]
    assert cli_command(parser.parse_args(["run", "--hooks", "h.py"])) == []


# ---------------------------------------------------------------- the stdin lifetime


def messages(*items: str) -> list[dict[str, Any]]:
    """``result`` and session states (any other word) as CLI messages."""
    return [
        {"type": "result"}
        if item == "result"
        else {"type": "system", "subtype": "session_state_changed", "state": item}
        for item in items
    ]


@pytest.mark.parametrize(
    ("prompts", "seen", "finished"),
    [
        (1, [], False),
        (1, ["running"], False),
        (1, ["running", "result"], False),  # a turn ended; the run may not have
        (1, ["running", "result", "idle"], True),
        (1, ["result"], True),  # a CLI that reports no session state
        (0, [], True),  # no prompt at all: nothing is owed
        (2, ["running", "result", "running"], False),
    ],
)
@pytest.mark.req("R-206")
def test_run_lifetime(prompts: int, seen: list[str], finished: bool) -> None:
    life = RunLifetime()
    for _ in range(prompts):
        life.prompt_sent()
    life.end_of_input()
    for message in messages(*seen):
        life.observe(message)
    assert life.finished is finished


@pytest.mark.req("R-206")
def test_a_prompt_written_after_a_result_is_owed_its_own() -> None:
    life = RunLifetime()
    life.prompt_sent()
    for message in messages("running", "result", "idle"):
        life.observe(message)
    life.prompt_sent()
    life.end_of_input()
    assert not life.finished
    assert life.observe({"type": "assistant"}) is False
    for message in messages("running", "result", "idle"):
        life.observe(message)
    assert life.finished


@pytest.mark.req("R-206")
def test_input_still_open_is_never_finished() -> None:
    life = RunLifetime()
    life.prompt_sent()
    for message in messages("running", "result", "idle"):
        life.observe(message)
    assert not life.finished


# ---------------------------------------------------------------------- the progress view


@pytest.mark.parametrize(
    ("payload", "words"),
    [
        ({}, "no decision"),
        (
            {
                "hookSpecificOutput": {
                    "permissionDecision": "deny",
                    "permissionDecisionReason": "no",
                }
            },
            "deny: no",
        ),
        ({"hookSpecificOutput": {"additionalContext": "ctx"}}, "context: ctx"),
        ({"continue": False, "stopReason": "halt"}, "stop: halt"),
        ({"decision": "block", "reason": "r"}, "block: r"),
        ({"behavior": "allow", "updatedInput": {"command": "ls"}}, "allow"),
        ({"behavior": "allow", "updatedInput": {"command": "pwd"}}, "allow, input -> pwd"),
        ({"behavior": "deny", "message": "nope"}, "deny: nope"),
    ],
)
@pytest.mark.req("R-211")
def test_describe_answer(payload: dict[str, Any], words: str) -> None:
    assert describe_answer(payload, {"command": "ls"}) == words


def line(obj: Any) -> bytes:
    return json.dumps(obj).encode() + b"\n"


@pytest.mark.req("R-211")
def test_progress_pairs_answers_with_requests_across_chunks() -> None:
    lines: list[str] = []
    now = [10.0]
    progress = Progress(lines.append, clock=lambda: now[0])
    watch = Watch(RunRecord(), progress)  # frames the stdio as `hookd run` does
    tool = {"type": "tool_use", "name": "Bash", "input": {"command": "ls -la"}}
    hook_input = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {}}
    body = {"subtype": "hook_callback", "callback_id": "hook_1", "input": hook_input}
    data = line({"type": "assistant", "message": {"content": [tool]}}) + line(
        {"type": "control_request", "request_id": "r1", "request": body}
    )
    watch.from_cli(data[:7])
    watch.from_cli(data[7:])
    now[0] = 10.25
    answer = {
        "hookSpecificOutput": {"permissionDecision": "allow", "permissionDecisionReason": "ok"}
    }
    response = {"subtype": "success", "request_id": "r1", "response": answer}
    watch.to_cli(line({"type": "control_response", "response": response}))
    watch.from_cli(
        line({"type": "result", "result": "all done", "num_turns": 2, "duration_ms": 1500})
    )
    assert lines == [
        "  > Bash: ls -la",
        "    PreToolUse Bash [hook_1] -> allow: ok (250.0 ms)",
        "= done: all done (2 turns, 1.5 s)",
    ]


@pytest.mark.req("R-211")
def test_progress_reports_cancels_and_tool_errors() -> None:
    lines: list[str] = []
    progress = Progress(lines.append, clock=lambda: 1.0)
    body = {"subtype": "can_use_tool", "tool_name": "Write", "input": {}}
    progress.cli_message({"type": "control_request", "request_id": "r9", "request": body})
    progress.cli_message({"type": "control_cancel_request", "request_id": "r9"})
    error = {"type": "tool_result", "is_error": True, "content": "refused\nby policy"}
    progress.cli_message({"type": "user", "message": {"content": [error]}})
    assert lines == [
        "    can_use_tool Write -> cancelled by the CLI after 0.0 ms",
        "    ! refused by policy",
    ]


# -------------------------------------------------------------------- streams


@pytest.mark.req("R-206")
async def test_cli_input_drops_writes_after_close() -> None:
    send, receive = trio.testing.memory_stream_one_way_pair()
    seen: list[bytes] = []
    cli_in = CliInput(send, seen.append)
    await cli_in.send_all(b"a\n")
    await cli_in.aclose()
    await cli_in.aclose()
    await cli_in.send_all(b"late\n")
    assert await receive.receive_some() == b"a\n"
    assert await receive.receive_some() == b""
    assert seen == [b"a\n"]


# ------------------------------------------------------------- against a fake CLI


async def hookd_run(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None, stdin: bytes = b""
) -> tuple[int, list[dict[str, Any]], str]:
    """Run ``python -m hookd run ARGS``; its exit code, stdout messages and stderr."""
    argv = [sys.executable, "-m", "hookd", "run", "--log-format", "json", *args]
    full_env = {**os.environ, "FAKE_CLI_LOG": str(tmp_path / "cli.log"), **(env or {})}
    with trio.fail_after(30):
        done = await trio.run_process(
            argv,
            stdin=stdin,
            capture_stdout=True,
            capture_stderr=True,
            check=False,
            cwd=tmp_path,
            env=full_env,
        )
    out = [json.loads(x) for x in done.stdout.splitlines()]
    return done.returncode, out, done.stderr.decode()


def cli_log(tmp_path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (tmp_path / "cli.log").read_text().splitlines()]


FAKE = ["--", sys.executable, str(FAKE_CLI)]


@pytest.mark.req("R-201", "R-202", "R-203", "R-204", "R-207", "R-209")
async def test_initialize_goes_first_and_the_prompt_after_its_answer(tmp_path: Path) -> None:
    hooks = str(HOOKS / "host_deny.py")
    code, out, err = await hookd_run(
        tmp_path, "--hooks", hooks, "-p", "hi", *FAKE, env={"FAKE_CLI_EXIT": "3"}
    )
    assert code == 3, err
    log = cli_log(tmp_path)
    assert log[0]["argv"] == [*STREAM, "--verbose"]
    stdin = [entry["stdin"] for entry in log[1:]]
    assert [m["type"] for m in stdin] == ["control_request", "user", "control_response"]
    assert stdin[0]["request"]["subtype"] == "initialize"
    assert stdin[0]["request_id"].startswith("req_1_")
    assert stdin[0]["request"]["hooks"]["PreToolUse"][0]["hookCallbackIds"] == ["hook_1"]
    assert stdin[1]["message"]["content"] == "hi"
    decision = stdin[2]["response"]["response"]["hookSpecificOutput"]["permissionDecision"]
    assert decision == "deny"
    # relayed: the conversation only; not the answer to hookd's initialize, nor host-only frames
    assert [m["type"] for m in out] == ["system", "assistant", "result"]


@pytest.mark.req("R-204", "R-206", "R-207")
async def test_user_messages_are_relayed_from_stdin(tmp_path: Path) -> None:
    hooks = str(HOOKS / "host_allow.py")
    own_init = {"type": "control_request", "request_id": "u1", "request": {"subtype": "initialize"}}
    prompts = [{"type": "user", "message": {"role": "user", "content": p}} for p in ("a", "b")]
    stdin = b"".join(line(m) for m in [own_init, *prompts])
    code, out, err = await hookd_run(tmp_path, "--hooks", hooks, *FAKE, stdin=stdin)
    assert code == 0, err
    relayed = [e["stdin"] for e in cli_log(tmp_path)[1:]]
    assert [m.get("message", {}).get("content") for m in relayed if m["type"] == "user"] == [
        "a",
        "b",
    ]
    assert [m["result"] for m in out if m["type"] == "result"] == ["a", "b"]
    refusal = next(m for m in out if m["type"] == "control_response")
    assert refusal["response"]["request_id"] == "u1"
    assert refusal["response"]["subtype"] == "error"


@pytest.mark.req("R-203")
async def test_a_refused_initialize_ends_the_run_with_an_error(tmp_path: Path) -> None:
    hooks = str(HOOKS / "host_allow.py")
    code, out, err = await hookd_run(
        tmp_path, "--hooks", hooks, "-p", "hi", *FAKE, env={"FAKE_CLI_INIT": "error"}
    )
    assert code == 1
    assert err.splitlines()[-1] == "hookd run: error: the CLI refused initialize: fake refusal"
    assert [e.get("stdin", {}).get("type") for e in cli_log(tmp_path)[1:]] == ["control_request"]
    assert out == []


@pytest.mark.req("R-203")
async def test_an_unanswered_initialize_times_out(tmp_path: Path) -> None:
    hooks = str(HOOKS / "host_allow.py")
    args = ["--hooks", hooks, "-p", "hi", "--init-timeout", "0.5", *FAKE]
    code, _, err = await hookd_run(tmp_path, *args, env={"FAKE_CLI_INIT": "silent"})
    assert code == 1
    assert err.splitlines()[-1] == (
        "hookd run: error: the CLI did not answer initialize within 0.5s"
    )


@pytest.mark.req("R-200", "R-209")
async def test_a_missing_cli_and_a_wrong_flag_are_reported(tmp_path: Path) -> None:
    hooks = str(HOOKS / "host_allow.py")
    code, _, err = await hookd_run(tmp_path, "--hooks", hooks, "-p", "x", "--", "/no/such/cli")
    assert code == 127
    assert "cannot run '/no/such/cli'" in err
    args = ["--hooks", hooks, "-p", "x", *FAKE, "--output-format", "text"]
    code, _, err = await hookd_run(tmp_path, *args)
    assert code == 2
    assert "--output-format 'text': hookd run needs --output-format stream-json" in err


@pytest.mark.req("R-210")
async def test_a_signal_is_passed_on_to_the_cli(tmp_path: Path) -> None:
    hooks = str(HOOKS / "host_allow.py")
    argv = [sys.executable, "-m", "hookd", "run", "--hooks", hooks, *FAKE]
    env = {**os.environ, "FAKE_CLI_LOG": str(tmp_path / "cli.log")}
    proc = await trio.lowlevel.open_process(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=tmp_path, env=env
    )
    assert proc.stdout is not None
    try:
        with trio.fail_after(30):
            first = b""
            while b"\n" not in first:  # system/init: the CLI is up and initialized
                first += await proc.stdout.receive_some()
            assert json.loads(first.split(b"\n")[0])["subtype"] == "init"
            proc.send_signal(signal.SIGTERM)
            assert await proc.wait() == 128 + signal.SIGTERM
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


@pytest.mark.req("R-212")
async def test_a_recorded_run_replays_against_hookd_serve(tmp_path: Path) -> None:
    out = tmp_path / "host.jsonl"
    hooks = str(HOOKS / "host_deny.py")
    run = ["-m", "hookd", "run", "--hooks", hooks, "-p", "hi", *FAKE]
    record = [
        sys.executable,
        "-m",
        "hookd",
        "record",
        "--out",
        str(out),
        "--",
        sys.executable,
    ]
    env = {**os.environ, "FAKE_CLI_LOG": str(tmp_path / "cli.log")}
    with trio.fail_after(30):
        done = await trio.run_process([*record, *run], capture_stdout=True, env=env, check=False)
    assert done.returncode == 0
    transcript = load(out)
    assert transcript.header.mode == "host"
    assert Path(str(transcript.hooks_spec())).resolve() == HOOKS / "host_deny.py"
    kinds = [(e.dir, e.msg.get("type")) for e in transcript.entries]
    assert kinds[:2] == [("hookd->cli", "control_request"), ("cli->hookd", "control_response")]
    assert ("hookd->cli", "user") in kinds
    with trio.fail_after(30):
        result = await replay(transcript, ReplayConfig(timeout_s=10))
    assert result.ok, result.errors
    assert len(result.plan.expected) == 1  # the hook's answer, compared with hookd serve's
