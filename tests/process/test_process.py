"""The real ``hookd`` process on pipes: stdout carries only frames, whatever hooks do."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from tests.peer import (
    error,
    event_input,
    hook_request,
    hookd_process,
    payload,
    pre_tool_use,
)

BASIC = str(Path(__file__).resolve().parents[1] / "hooks" / "basic.py")
SERVE = ("serve", BASIC, "--log-format", "json")


@pytest.mark.req("R-004")
async def test_printing_hook_cannot_corrupt_stdout() -> None:
    async with hookd_process(*SERVE, stderr=subprocess.PIPE) as (peer, proc):
        await peer.send(
            hook_request("p", "hook_7", pre_tool_use("Print")),
            hook_request("ok", "hook_2", pre_tool_use()),
        )
        got = await peer.recv_many(2)
        assert payload(got["p"]) == {}
        await peer.close()
        rest = await peer.read_to_eof()
        assert rest == b""
        for line in peer.raw_lines:
            assert json.loads(line)["type"] == "control_response"
        with trio.fail_after(10):
            await proc.wait()
        assert proc.returncode == 0
        assert proc.stderr is not None
        err = await proc.stderr.receive_some(1 << 20)
        assert b"this must not reach stdout" in err


@pytest.mark.req("R-071", "R-081")
async def test_hook_past_its_timeout_is_answered_by_policy() -> None:
    async with hookd_process(*SERVE) as (peer, _):
        await peer.send(hook_request("h", "hook_4", pre_tool_use("Hang")))
        msg = await peer.recv(timeout=10)
        specific = payload(msg)["hookSpecificOutput"]
        assert specific["permissionDecision"] == "deny"
        # hookd's own deadline, 1.8 s: inside the CLI's 2 s, so hookd answers first
        assert "timed out: no answer within 1.8s" in specific["permissionDecisionReason"]


@pytest.mark.req("R-002", "R-040")
async def test_malformed_line_then_good_request_and_cancel() -> None:
    async with hookd_process(*SERVE) as (peer, _):
        await peer.send(b'{"type": "control_request", "request_id": \n', b"\x00\xff garbage\n")
        await peer.send(hook_request("slow", "hook_3", pre_tool_use("Slow", sleep_s=30)))
        await peer.send({"type": "control_cancel_request", "request_id": "slow"})
        await peer.send(hook_request("good", "hook_2", pre_tool_use()))
        assert (await peer.recv())["response"]["request_id"] == "good"
        init = {
            "type": "control_request",
            "request_id": "fence",
            "request": {"subtype": "initialize"},
        }
        await peer.send(init)  # answered at once: nothing for "slow" may come before it
        assert (await peer.recv())["response"]["request_id"] == "fence"


@pytest.mark.req("R-072", "R-082")
async def test_exception_answers_and_service_keeps_running() -> None:
    async with hookd_process(*SERVE) as (peer, _):
        stop = event_input("Stop", stop_hook_active=False)
        await peer.send(
            hook_request("raise", "hook_13", stop), hook_request("after", "hook_12", stop)
        )
        got = await peer.recv_many(2)
        assert error(got["raise"]) == ("stop hook broke", "hook_execution_error")
        assert payload(got["after"]) == {}


@pytest.mark.req("R-100", "R-101")
@pytest.mark.parametrize("how", ["eof", "sigterm", "sigint"])
async def test_shutdown_with_hooks_in_flight_exits_zero(how: str) -> None:
    async with hookd_process(*SERVE) as (peer, proc):
        await peer.send(
            hook_request("hang", "hook_4", pre_tool_use("Hang")),
            hook_request("ok", "hook_2", pre_tool_use()),
        )
        assert (await peer.recv())["response"]["request_id"] == "ok"
        match how:
            case "eof":
                await peer.close()
            case "sigterm":
                proc.send_signal(signal.SIGTERM)
            case _:
                proc.send_signal(signal.SIGINT)
        rest = await peer.read_to_eof()
        if how == "eof":  # the hung hook is answered at its deadline, then hookd exits
            (answer,) = [json.loads(line) for line in rest.splitlines()]
            assert answer["response"]["request_id"] == "hang"
        else:  # a signal cancels it unanswered
            assert rest == b""
        with trio.fail_after(10):
            await proc.wait()
        assert proc.returncode == 0


@pytest.mark.req("R-010")
async def test_jsonrpc_framing_over_the_process() -> None:
    async with hookd_process(*SERVE) as (peer, _):
        await peer.send(
            {"jsonrpc": "2.0", "id": 1, "method": "initialize"},
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "hook_callback",
                "params": {"callback_id": "hook_2", "input": pre_tool_use()},
            },
        )
        got = await peer.recv_many(2)
        assert got[1]["result"]["serverInfo"]["name"] == "hookd"
        assert got[2]["result"]["hookSpecificOutput"]["permissionDecision"] == "allow"


@pytest.mark.req("R-073")
async def test_asyncio_and_thread_hooks_in_the_process() -> None:
    async with hookd_process(*SERVE) as (peer, _):
        await peer.send(
            hook_request("aio", "hook_10", pre_tool_use("Aio")),
            hook_request("sync", "hook_9", pre_tool_use("Sync")),
        )
        got = await peer.recv_many(2)
        assert payload(got["aio"]) == {"systemMessage": "asyncio loop running: True"}
        assert payload(got["sync"]) == {"systemMessage": "from a thread"}


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hookd", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_check_prints_the_registration_table() -> None:
    proc = _run("check", BASIC)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split()[:3] == ["ID", "EVENT", "MATCHER"]
    assert lines[1].split()[:3] == ["hook_1", "SessionStart", "*"]
    assert any(
        line.split()[:3] == ["hook_4", "PreToolUse", "Hang"] and "2s" in line for line in lines
    )


@pytest.mark.req("R-103")
def test_check_and_serve_explain_a_broken_module(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("hooks = {'Stop': [1]}\n")
    for cmd in ("check", "serve"):
        proc = _run(cmd, str(bad))
        assert proc.returncode == 1
        assert "expected a HookMatcher" in proc.stderr
        assert proc.stdout == ""


def test_version_and_help() -> None:
    assert _run("--version").stdout.startswith("hookd ")
    help_text = _run("serve", "--help").stdout
    for option in (
        "--timeout",
        "--max-line-bytes",
        "--max-in-flight",
        "--no-validate",
        "--log-level",
        "--log-format",
    ):
        assert option in help_text


def test_demo_runs_a_scripted_session() -> None:
    proc = _run("demo")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "DENY (blocked by guard: recursive delete of /)" in proc.stdout
    assert "adds context" in proc.stdout
    assert "hookd exited with code 0" in proc.stdout
    steps = proc.stdout.split("\n\n")[2].splitlines()  # the table: one line per scripted step
    assert " ".join(steps[-1].split()) == (
        "PreToolUse Read: README.md - no hook matches: the CLI calls none"
    )
    assert not any("audit:" in line for line in steps)  # the hook's print comes after the table
    assert "stderr (the hooks' prints, hookd's warnings):\n  audit: Bash #1\n" in proc.stdout
    installed = proc.stdout.split("the installed path")[1]  # hookd install, then its daemon
    assert "$ hookd install .claude/hooks.py\n  hookd: .claude/settings.local.json:" in installed
    denied = next(line for line in installed.splitlines() if "rm -rf /" in line)
    assert " ".join(denied.split()[:7]) == "PreToolUse Bash: rm -rf / daemon DENY"
    assert "removed" in installed.split("$ hookd uninstall .claude/hooks.py")[1]


@pytest.mark.req("R-023")
async def test_initialize_is_answered_before_trio_is_needed_and_the_rest_is_served() -> None:
    """The handshake at the head of the input is answered early; what follows it is not lost."""
    async with hookd_process(*SERVE) as (peer, _):
        init = {"type": "control_request", "request_id": "i", "request": {"subtype": "initialize"}}
        rpc_init = {"jsonrpc": "2.0", "id": 9, "method": "initialize"}
        await peer.send(init, rpc_init, hook_request("h", "hook_2", pre_tool_use()), init)
        first, rpc, hook, last = [await peer.recv() for _ in range(4)]
        assert payload(first)["serverInfo"]["name"] == "hookd"
        assert rpc["id"] == 9 and rpc["result"]["hooks"] == payload(first)["hooks"]
        assert payload(hook)["hookSpecificOutput"]["permissionDecision"] == "allow"
        assert payload(last)["hooks"] == payload(first)["hooks"]
