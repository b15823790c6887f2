"""``POST /agent/<agent>/<AgentEvent>`` on a real ``hookd serve --http``: each dialect's
payload in, the agent's stdout or stderr and exit code out, behind the same token."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.serve.http.client import Client, Reply, serve_http

GUARD = Path(__file__).resolve().parents[1] / "hooks" / "agent_guard.py"
DENY = "no recursive deletes"


def body(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload).encode()


async def post(client: Client, target: str, payload: dict[str, Any] | bytes, **kw: Any) -> Reply:
    data = payload if isinstance(payload, bytes) else body(payload)
    return await client.request("POST", f"/agent/{target}", data, **kw)


def exit_code(reply: Reply) -> int:
    return int(reply.headers["x-hookd-exit"])


BASE = {"session_id": "s1", "cwd": "/tmp", "transcript_path": "/tmp/t.jsonl"}
#: agent, its own event, its payload, and the JSON its command hook must print.
DENIED: list[tuple[str, str, dict[str, Any], dict[str, Any]]] = [
    ("codex", "PreToolUse",
     {**BASE, "hook_event_name": "PreToolUse", "turn_id": "t1", "model": "m", "tool_name": "Bash",
      "tool_input": {"command": "rm -rf build"}, "tool_use_id": "c1"},
     {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                             "permissionDecisionReason": DENY}}),
    ("gemini", "BeforeTool",
     {**BASE, "hook_event_name": "BeforeTool", "timestamp": "2026-01-01T00:00:00Z",
      "tool_name": "run_shell_command", "tool_input": {"command": "rm -rf build"}},
     {"decision": "deny", "reason": DENY}),
    ("copilot", "preToolUse",
     {"sessionId": "s1", "timestamp": 1, "cwd": "/tmp", "toolName": "bash",
      "toolArgs": '{"command": "rm -rf build"}'},
     {"permissionDecision": "deny", "permissionDecisionReason": DENY}),
    ("qwen", "PreToolUse",
     {**BASE, "hook_event_name": "PreToolUse", "tool_name": "run_shell_command",
      "tool_input": {"command": "rm -rf build"}, "tool_use_id": "q1"},
     {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                             "permissionDecisionReason": DENY}}),
]  # fmt: skip


@pytest.mark.req("R-A07")
async def test_each_agent_is_answered_in_its_own_dialect(tmp_path: Path) -> None:
    async with serve_http(tmp_path, hooks=GUARD) as served:
        client = await served.client()
        for agent, event, payload, expected in DENIED:
            reply = await post(client, f"{agent}/{event}", payload)
            assert (reply.status, exit_code(reply)) == (200, 0), reply
            assert json.loads(reply.body) == expected, agent
            harmless = json.loads(json.dumps(payload).replace("rm -rf build", "pwd"))
            quiet = await post(client, f"{agent}/{event}", harmless)
            assert (quiet.status, exit_code(quiet), quiet.body) == (200, 0, b"")
        status = await client.request("GET", "/status")
        assert set(status.json()["agents"]) == {"codex", "gemini", "copilot", "qwen"}


@pytest.mark.req("R-A07")
async def test_failures_fail_closed_on_blocking_events(tmp_path: Path) -> None:
    async with serve_http(tmp_path, hooks=GUARD) as served:
        client = await served.client()
        garbage = await post(client, "gemini/BeforeTool", b"not json")
        assert (garbage.status, exit_code(garbage)) == (200, 2)
        (line,) = garbage.body.decode().splitlines()
        assert line.startswith("hookd could not check this Gemini CLI call: the body is not JSON")
        after = await post(client, "gemini/AfterTool", b"[]")
        assert (after.status, exit_code(after)) == (200, 1)  # shown, not obeyed
        other = await post(client, "gemini/BeforeModel", {"llm_request": {}})
        assert (other.status, exit_code(other), other.body) == (200, 0, b"")
        unknown = await post(client, "cursor/PreToolUse", {})
        assert unknown.status == 404
        assert "unknown agent 'cursor'" in unknown.json()["error"]


@pytest.mark.req("R-A07")
async def test_the_agent_route_is_behind_the_token(tmp_path: Path) -> None:
    async with serve_http(tmp_path, hooks=GUARD) as served:
        client = await served.client()
        refused = await post(client, "codex/PreToolUse", DENIED[0][2], token="wrong")
        assert refused.status == 401
        assert "x-hookd-exit" not in refused.headers
        other = await served.client()
        wrong = await other.request("GET", "/agent/codex/PreToolUse")
        assert wrong.status == 405
