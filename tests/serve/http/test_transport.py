"""``hookd serve --http`` through a real socket: answers, failure mapping, keep-alive, status."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
import trio

from tests.serve.http.client import TOKEN, serve_http

pytestmark = pytest.mark.req("R-501")


def pre(command: str, session: str = "s1", tool: str = "Bash") -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": "/tmp/t.jsonl",
        "cwd": "/tmp",
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": {"command": command},
        "tool_use_id": "toolu_1",
    }


def post(command: str) -> dict[str, Any]:
    out = pre(command)
    out["hook_event_name"] = "PostToolUse"
    out["tool_response"] = {"stdout": "", "stderr": "", "interrupted": False}
    return out


def decision(reply: Any) -> str:
    return str(reply.json()["hookSpecificOutput"]["permissionDecision"])


@pytest.mark.req("R-502", "R-503")
async def test_allow_deny_rewrite_and_context_through_post(tmp_path: Path) -> None:
    async with serve_http(tmp_path) as served:
        client = await served.client()
        allowed = await client.post("PreToolUse", pre("ls"))
        assert allowed.status == 200
        assert allowed.headers["content-type"] == "application/json"
        assert decision(allowed) == "allow"
        denied = await client.post("PreToolUse", pre("rm -rf /"))
        assert denied.json()["hookSpecificOutput"] == {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no rm",
        }
        rewritten = await client.post("PreToolUse", pre("rewrite hello"))
        assert rewritten.json()["hookSpecificOutput"]["updatedInput"] == {"command": "echo hello"}
        context = await client.post("PreToolUse", pre("context the tests"))
        assert context.json()["hookSpecificOutput"]["additionalContext"] == "remember the tests"
        prompt = {**pre("x"), "hook_event_name": "UserPromptSubmit", "prompt": "forbidden word"}
        blocked = await client.post("UserPromptSubmit", prompt)
        assert blocked.json() == {"decision": "block", "reason": "that prompt is forbidden"}
        await client.aclose()


async def test_an_event_without_hooks_or_a_command_no_matcher_selects_is_answered_empty(
    tmp_path: Path,
) -> None:
    async with serve_http(tmp_path) as served:
        client = await served.client()
        other_tool = {**pre("x"), "tool_name": "Read", "tool_input": {"file_path": "/a"}}
        assert (await client.post("PreToolUse", other_tool)).json() == {}
        stop = {**pre("x"), "hook_event_name": "Stop", "stop_hook_active": False}
        for key in ("tool_name", "tool_input", "tool_use_id"):
            del stop[key]
        reply = await client.post("Stop", stop)
        assert (reply.status, reply.json()) == (200, {})


@pytest.mark.req("R-504")
async def test_failure_mapping_block_continue_and_timeout(tmp_path: Path) -> None:
    async with serve_http(tmp_path) as served:
        client = await served.client()
        raised = await client.post("PreToolUse", pre("raise now"))
        assert raised.status == 200
        specific = raised.json()["hookSpecificOutput"]
        assert specific["permissionDecision"] == "deny"
        assert (
            "hookd: hook guard raised an exception: guard broke on now"
            in specific["permissionDecisionReason"]
        )
        with trio.fail_after(20):
            hung = await client.post("PreToolUse", pre("hang"))
        assert hung.status == 200
        reason = hung.json()["hookSpecificOutput"]["permissionDecisionReason"]
        assert "hookd: hook guard timed out" in reason
        continued = await client.post("PostToolUse", post("raise later"))
        assert continued.status == 200
        assert continued.json() == {
            "systemMessage": "hookd: hook after raised an exception: post hook broke"
        }
        fine = await client.post("PostToolUse", post("ls"))
        assert fine.json()["hookSpecificOutput"]["additionalContext"] == "after ran"


@pytest.mark.req("R-505")
async def test_bad_bodies_are_400_and_unknown_paths_404_wrong_methods_405(tmp_path: Path) -> None:
    async with serve_http(tmp_path) as served:
        cases: list[tuple[str, str, bytes, int]] = [
            ("POST", "/hook/PreToolUse", b"not json", 400),
            ("POST", "/hook/PreToolUse", b"[1, 2]", 400),
            ("POST", "/hook/PreToolUse", b'{"tool_name": "Bash"}', 400),
            ("POST", "/hook/PostToolUse", _body(pre("ls")), 400),  # the URL disagrees
            ("POST", "/hook/PreToolUse", _body({**pre("ls"), "tool_name": 5}), 400),
            ("POST", "/hooks/PreToolUse", _body(pre("ls")), 404),
            ("POST", "/hook/../../etc/passwd", b"{}", 404),
            ("GET", "/hook/PreToolUse", b"", 405),
            ("POST", "/status", b"", 405),
        ]
        for method, target, body, status in cases:
            client = await served.client()
            reply = await client.request(method, target, body)
            assert reply.status == status, (method, target, body, reply)
            assert "error" in reply.json()
            await client.aclose()
        client = await served.client()
        ok = await client.request("POST", "/hook/PreToolUse?dedupe=2&x=y", _body(pre("ls")))
        assert (ok.status, decision(ok)) == (200, "allow")


def _body(obj: Any) -> bytes:
    return json.dumps(obj).encode()


def _deep(depth: int) -> bytes:
    """A PreToolUse input whose ``tool_input`` makes it ``depth`` levels deep (itself is 1)."""
    inner = b'{"command": "ls", "x": ' + b"[" * (depth - 2) + b"1" + b"]" * (depth - 2) + b"}"
    return _body(pre("ls")).replace(b'{"command": "ls"}', inner)


@pytest.mark.req("R-514")
async def test_bodies_not_utf8_or_nested_too_deep_are_400_without_a_traceback(
    tmp_path: Path,
) -> None:
    cases = {
        _body(pre("ls")).replace(b'"ls"', b'"l\xffs"'): "the body is not valid UTF-8",
        _body(pre("ls")).replace(b'"command"', b'"com\xe2\x28mand"'): "the body is not valid UTF-8",
        b"[" * 1000 + b"]" * 1000: "the body is nested deeper than 200 levels",
        b'{"a":' * 1000 + b"1" + b"}" * 1000: "the body is nested deeper than 200 levels",
        _deep(201): "the body is nested deeper than 200 levels",
    }
    async with serve_http(tmp_path) as served:
        for body, message in cases.items():
            client = await served.client()
            reply = await client.request("POST", "/hook/PreToolUse", body)
            assert (reply.status, reply.json()) == (400, {"error": message}), body[:40]
            await client.aclose()
        client = await served.client()
        deepest = await client.request("POST", "/hook/PreToolUse", _deep(200))
        assert (deepest.status, decision(deepest)) == (200, "allow")
        status = (await client.request("GET", "/status")).json()
        assert status["requests"] == len(cases) + 1
    log = "\n".join(served.stderr)
    assert "Traceback" not in log and "internal" not in log
    assert log.count('"outcome":"invalid"') == len(cases)


@pytest.mark.req("R-506")
async def test_keep_alive_reuses_one_connection(tmp_path: Path) -> None:
    async with serve_http(tmp_path) as served:
        client = await served.client()
        for i in range(50):
            reply = await client.post("PreToolUse", pre(f"count {i}", session="keep"))
            assert reply.headers.get("connection") != "close"
            assert reply.json()["hookSpecificOutput"]["permissionDecisionReason"] == (
                f"call {i + 1}"
            )
        status = await client.request("GET", "/status")
        assert status.json()["connections"] == 1


@pytest.mark.req("R-507")
async def test_concurrent_connections_are_served_at_once(tmp_path: Path) -> None:
    """A hook waiting on one connection does not hold up the others."""
    async with serve_http(tmp_path) as served:
        waiting = await served.client()
        results: dict[str, Any] = {}

        async def wait_for_gate() -> None:
            results["wait"] = await waiting.post("PreToolUse", pre("wait g1", tool="Slow"))

        async def one(i: int) -> None:
            client = await served.client()
            results[f"c{i}"] = await client.post("PreToolUse", pre(f"count {i}", session=f"p{i}"))
            await client.aclose()

        with trio.fail_after(20):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(wait_for_gate)
                await served.wait_line("waiting g1")
                for i in range(16):
                    nursery.start_soon(one, i)
                opener = await served.client()
                opened = await opener.post("PreToolUse", pre("open g1", tool="Slow"))
                assert decision(opened) == "allow"
        assert decision(results["wait"]) == "allow"
        assert all(decision(results[f"c{i}"]) == "allow" for i in range(16))


@pytest.mark.req("R-508")
async def test_status_reports_per_hook_counters(tmp_path: Path) -> None:
    async with serve_http(tmp_path) as served:
        client = await served.client()
        for command in ("ls", "rm x", "raise a"):
            await client.post("PreToolUse", pre(command))
        await client.post("PostToolUse", post("raise b"))
        status = (await client.request("GET", "/status")).json()
        assert status["pid"] == served.proc.pid == served.ready["pid"]
        assert status["module"] == served.ready["module"]
        assert status["last_reload"] is None and status["reload_error"] is None
        assert status["uptime_s"] >= 0
        rows = {row["callback_id"]: row for row in status["hooks"]}
        assert set(rows) == {"hook_1", "hook_2", "hook_3", "hook_4"}
        guard = rows["hook_1"]
        assert (guard["name"], guard["event"], guard["calls"]) == ("guard", "PreToolUse", 3)
        assert (guard["errors"], guard["timeouts"]) == (1, 0)
        assert 0 < guard["p50_ms"] <= guard["p99_ms"]
        assert (rows["hook_3"]["calls"], rows["hook_3"]["errors"]) == (1, 1)
        assert (rows["hook_4"]["calls"], rows["hook_4"]["p50_ms"]) == (0, None)


@pytest.mark.req("R-509")
async def test_ready_file_is_private_and_removed_at_exit(tmp_path: Path) -> None:
    async with serve_http(tmp_path) as served:
        mode = stat.S_IMODE(os.stat(served.ready_file).st_mode)
        assert mode == 0o600
        assert set(served.ready) == {"pid", "start_ticks", "host", "port", "module", "started"}
        assert served.ready["host"] == "127.0.0.1"
        assert served.ready["module"] == str(Path("tests/hooks/http_guard.py").resolve())
        ready_file = served.ready_file
    assert served.proc.returncode == 0
    assert not ready_file.exists()


@pytest.mark.req("R-507")
async def test_a_client_that_leaves_while_its_hook_runs_disturbs_nothing(tmp_path: Path) -> None:
    async with serve_http(tmp_path) as served:
        leaving = await served.client()
        body = json.dumps(pre("wait gone", tool="Slow")).encode()
        await leaving.stream.send_all(
            b"POST /hook/PreToolUse HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
            + TOKEN.encode()
            + b"\r\nContent-Length: %d\r\n\r\n" % len(body)
            + body
        )
        with trio.fail_after(20):
            await served.wait_line("waiting gone")
            await leaving.aclose()  # as the CLI does when its own timeout fires
            other = await served.client()
            opened = await other.post("PreToolUse", pre("open gone", tool="Slow"))
            assert decision(opened) == "allow"  # the waiting hook now answers a closed socket
            again = await other.post("PreToolUse", pre("rm x"))
        assert decision(again) == "deny"
        fresh = await served.client()
        assert decision(await fresh.post("PreToolUse", pre("ls"))) == "allow"
    assert served.proc.returncode == 0
    assert not [line for line in served.stderr if "internal.error" in line]
