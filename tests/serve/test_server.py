"""The server over in-memory streams: ordering, cancels, EOF, framing, JSON-RPC."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from hookd.core.loader import load_hooks
from hookd.core.registry import HookMatcher, Registry
from hookd.serve.config import ServeConfig
from tests.peer import error, event_input, hook_request, payload, pre_tool_use, served

BASIC = str(Path(__file__).resolve().parents[1] / "hooks" / "basic.py")


def basic() -> Registry:
    return load_hooks(BASIC)


@pytest.mark.req("R-020", "R-022")
async def test_initialize_reports_registrations_and_server_info() -> None:
    async with served(basic()) as (peer, _):
        init = {
            "type": "control_request",
            "request_id": "i",
            "request": {"subtype": "initialize", "hooks": None},
        }
        await peer.send(init, init | {"request_id": "j"})
        first, second = payload(await peer.recv()), payload(await peer.recv())
        assert first == second
        assert first["serverInfo"]["name"] == "hookd"
        assert first["hooks"]["SessionStart"] == [
            {
                "matcher": None,
                "hookCallbackIds": ["hook_1"],
                "timeout": 30.0,
                "onFailure": "continue",
            }
        ]
        assert first["hooks"]["PreToolUse"][0]["hookCallbackIds"] == ["hook_2"]
        assert first["hooks"]["Stop"][0]["hookCallbackIds"] == ["hook_12", "hook_13"]


@pytest.mark.req("R-030")
async def test_hook_callback_answers_the_hook_output() -> None:
    async with served(basic()) as (peer, _):
        await peer.send(hook_request("r1", "hook_2", pre_tool_use(), "toolu_1"))
        msg = await peer.recv()
        assert msg == {
            "type": "control_response",
            "response": {
                "subtype": "success",
                "request_id": "r1",
                "response": {
                    "hookSpecificOutput": {
                        "hookEventName": "PreToolUse",
                        "permissionDecision": "allow",
                        "permissionDecisionReason": "ok",
                    }
                },
            },
        }


@pytest.mark.req("R-031", "R-074")
async def test_none_becomes_empty_object_and_state_is_per_session() -> None:
    async with served(basic()) as (peer, _):
        await peer.send(hook_request("a", "hook_12", event_input("Stop", stop_hook_active=False)))
        assert payload(await peer.recv()) == {}
        start = event_input("SessionStart", source="startup")
        await peer.send(hook_request("b", "hook_1", start))
        await peer.send(hook_request("c", "hook_1", start))
        await peer.send(hook_request("d", "hook_1", start | {"session_id": "other"}))
        got = await peer.recv_many(3)
        assert payload(got["b"]) == {"systemMessage": "seen 1"}
        assert payload(got["c"]) == {"systemMessage": "seen 2"}
        assert payload(got["d"]) == {"systemMessage": "seen 1"}


@pytest.mark.req("R-032", "R-033", "R-034")
@pytest.mark.parametrize(
    ("request_body", "text", "code"),
    [
        (
            {"subtype": "hook_callback", "callback_id": "hook_99", "input": {}},
            "No hook callback found for ID: hook_99",
            "unknown_callback",
        ),
        (
            {"subtype": "mcp_message", "server_name": "x", "message": {}},
            "Unsupported control request subtype: mcp_message",
            "unsupported_request",
        ),
        (
            {"subtype": "hook_callback", "input": {}},
            "request: Object missing required field 'callback_id'",
            "invalid_request",
        ),
        (
            {"subtype": "can_use_tool", "tool_name": "Bash", "input": {}},
            "canUseTool callback is not provided",
            "unsupported_request",
        ),
    ],
)
async def test_error_answers(request_body: dict[str, Any], text: str, code: str) -> None:
    async with served(basic()) as (peer, _):
        await peer.send({"type": "control_request", "request_id": "e", "request": request_body})
        assert error(await peer.recv()) == (text, code)


@pytest.mark.req("R-070")
async def test_a_slow_hook_never_delays_another(autojump_clock: trio.testing.MockClock) -> None:
    async with served(basic()) as (peer, _):
        await peer.send(
            hook_request("slow", "hook_3", pre_tool_use("Slow", sleep_s=3)),
            hook_request("fast", "hook_2", pre_tool_use()),
        )
        first, second = await peer.recv(), await peer.recv()
        assert [m["response"]["request_id"] for m in (first, second)] == ["fast", "slow"]


@pytest.mark.req("R-040", "R-035")
async def test_cancel_means_no_answer(autojump_clock: trio.testing.MockClock) -> None:
    async with served(basic()) as (peer, server):
        await peer.send(hook_request("c1", "hook_3", pre_tool_use("Slow", sleep_s=3)))
        await trio.testing.wait_all_tasks_blocked()
        assert server.in_flight == 1
        await peer.send(
            {"type": "control_cancel_request", "request_id": "c1"},
            {"type": "control_cancel_request", "request_id": "never-seen"},
        )
        await peer.send(hook_request("after", "hook_2", pre_tool_use()))
        assert (await peer.recv())["response"]["request_id"] == "after"
        await peer.expect_silence(10)
        assert server.in_flight == 0


@pytest.mark.req("R-070", "R-035")
async def test_hundred_concurrent_slow_hooks_finish_together(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with served(basic()) as (peer, _):
        start = trio.current_time()
        await peer.send(
            *[hook_request(f"r{i}", "hook_3", pre_tool_use("Slow", sleep_s=1)) for i in range(100)]
        )
        got = await peer.recv_many(100)
        assert sorted(got) == sorted(f"r{i}" for i in range(100))
        assert trio.current_time() - start == pytest.approx(1.0)


@pytest.mark.req("R-002")
async def test_malformed_lines_are_skipped_and_service_continues() -> None:
    async with served(basic()) as (peer, _):
        await peer.send(
            b"not json at all\n",
            b"\n",
            b"   \r\n",
            b'{"type": "control_requ\n',
            b'{"type":"keep_alive"}\n',
            b'{"type":"system","subtype":"init"}\n',
            b"[1, 2\n",
            b'"just a string"\n',
        )
        await peer.send(hook_request("good", "hook_2", pre_tool_use()))
        assert (await peer.recv())["response"]["request_id"] == "good"


@pytest.mark.req("R-001")
async def test_one_byte_trickle() -> None:
    async with served(basic()) as (peer, _):
        data = json.dumps(hook_request("t", "hook_2", pre_tool_use())).encode() + b"\r\n"
        for i in range(len(data)):
            await peer.send(data[i : i + 1])
        assert (await peer.recv())["response"]["request_id"] == "t"


@pytest.mark.req("R-100")
async def test_eof_with_hooks_in_flight_answers_them_by_their_deadlines(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with served(basic()) as (peer, server):
        await peer.send(
            hook_request("h", "hook_4", pre_tool_use("Hang")),
            hook_request("ok", "hook_2", pre_tool_use()),
        )
        assert (await peer.recv())["response"]["request_id"] == "ok"
        await peer.close()
        rest = await peer.read_to_eof()  # the hung hook is answered at its deadline
        (answer,) = [json.loads(line) for line in rest.splitlines()]
        assert answer["response"]["request_id"] == "h"
        assert (
            "timed out"
            in answer["response"]["response"]["hookSpecificOutput"]["permissionDecisionReason"]
        )
        assert server.in_flight == 0


@pytest.mark.req("R-100")
async def test_eof_without_finishing_cancels_the_hooks_in_flight() -> None:
    """Host mode: the CLI that would read the answers is gone."""
    async with served(basic(), ServeConfig(finish_on_eof=False)) as (peer, server):
        await peer.send(
            hook_request("h", "hook_4", pre_tool_use("Hang")),
            hook_request("ok", "hook_2", pre_tool_use()),
        )
        assert (await peer.recv())["response"]["request_id"] == "ok"
        await peer.close()
        assert await peer.read_to_eof() == b""  # the hung hook is never answered
        assert server.in_flight == 0


@pytest.mark.req("R-041")
async def test_duplicate_in_flight_request_id_is_ignored(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with served(basic()) as (peer, _):
        req = hook_request("dup", "hook_3", pre_tool_use("Slow", sleep_s=1))
        await peer.send(req, req)
        assert (await peer.recv())["response"]["request_id"] == "dup"
        await peer.expect_silence(5)


@pytest.mark.req("R-042")
async def test_excess_in_flight_requests_are_refused() -> None:
    async with served(basic(), ServeConfig(max_in_flight=2)) as (peer, _):
        await peer.send(*[hook_request(f"h{i}", "hook_4", pre_tool_use("Hang")) for i in range(3)])
        text, code = error(await peer.recv())
        assert code == "overloaded" and "limit 2" in text


@pytest.mark.req("R-003")
async def test_oversize_line_is_answered_when_its_id_is_readable() -> None:
    async with served(basic(), ServeConfig(max_line_bytes=1000)) as (peer, _):
        big = hook_request("big", "hook_2", pre_tool_use(padding="x" * 5000))
        await peer.send(big, hook_request("small", "hook_2", pre_tool_use()))
        got = await peer.recv_many(2)
        text, code = error(got["big"])
        assert code == "invalid_request" and "exceeds the line limit of 1000 bytes" in text
        assert payload(got["small"])["hookSpecificOutput"]["permissionDecision"] == "allow"


# ----------------------------------------------------------------------- JSON-RPC


def rpc(method: str, params: dict[str, Any] | None = None, id: Any = None) -> dict[str, Any]:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        msg["params"] = params
    if id is not None:
        msg["id"] = id
    return msg


@pytest.mark.req("R-010", "R-011", "R-033")
async def test_jsonrpc_request_error_and_notification() -> None:
    async with served(basic()) as (peer, _):
        await peer.send(rpc("hook_callback", {"callback_id": "hook_2", "input": pre_tool_use()}))
        await peer.send(
            rpc("hook_callback", {"callback_id": "hook_2", "input": pre_tool_use()}, id=1)
        )
        await peer.send(rpc("hook_callback", {"callback_id": "nope", "input": {}}, id="two"))
        await peer.send(rpc("frobnicate", {}, id=3))
        got = await peer.recv_many(3)
        assert got[1]["result"]["hookSpecificOutput"]["permissionDecision"] == "allow"
        assert got["two"]["error"] == {
            "code": -32001,
            "message": "No hook callback found for ID: nope",
            "data": {"error_code": "unknown_callback"},
        }
        assert got[3]["error"]["code"] == -32601


@pytest.mark.req("R-014", "R-012")
async def test_jsonrpc_parse_error_and_invalid_request() -> None:
    async with served(basic()) as (peer, _):
        await peer.send(b'{"jsonrpc": "2.0", "method": oops}\n', b"[]\n")
        parse, empty = await peer.recv(), await peer.recv()
        assert parse["id"] is None and parse["error"]["code"] == -32700
        assert empty["id"] is None and empty["error"]["code"] == -32600


@pytest.mark.req("R-012")
async def test_jsonrpc_batch_is_answered_as_one_array() -> None:
    async with served(basic()) as (peer, _):
        await peer.send(
            [
                rpc("initialize", {}, id=1),
                rpc("hook_callback", {"callback_id": "hook_2", "input": pre_tool_use()}, id=2),
                rpc("hook_callback", {"callback_id": "hook_2", "input": pre_tool_use()}),
                rpc("nope", id=3),
            ]
        )
        answers = await peer.recv()
        assert isinstance(answers, list)
        assert sorted(a["id"] for a in answers) == [1, 2, 3]


@pytest.mark.req("R-013")
async def test_jsonrpc_cancel_request(autojump_clock: trio.testing.MockClock) -> None:
    async with served(basic()) as (peer, _):
        await peer.send(
            rpc(
                "hook_callback",
                {"callback_id": "hook_3", "input": pre_tool_use("Slow", sleep_s=2)},
                id=9,
            )
        )
        await trio.testing.wait_all_tasks_blocked()
        await peer.send(rpc("$/cancelRequest", {"id": 9}))
        await peer.expect_silence(5)


@pytest.mark.req("R-030")
async def test_sdk_hook_matcher_module_runs_unchanged(tmp_path: Path) -> None:
    module = tmp_path / "sdk_hooks.py"
    module.write_text(
        "from claude_agent_sdk import HookMatcher\n"
        "async def check_bash(input_data, tool_use_id, context):\n"
        "    if 'rm' in input_data['tool_input'].get('command', ''):\n"
        "        return {'hookSpecificOutput': {'hookEventName': 'PreToolUse',\n"
        "                'permissionDecision': 'deny', 'permissionDecisionReason': 'no rm'}}\n"
        "    return {}\n"
        "hooks = {'PreToolUse': [HookMatcher(matcher='Bash', hooks=[check_bash], timeout=10)]}\n"
    )
    async with served(load_hooks(str(module))) as (peer, _):
        bad = pre_tool_use() | {"tool_input": {"command": "rm -rf x"}}
        await peer.send(
            hook_request("a", "hook_1", bad), hook_request("b", "hook_1", pre_tool_use())
        )
        got = await peer.recv_many(2)
        assert payload(got["a"])["hookSpecificOutput"]["permissionDecision"] == "deny"
        assert payload(got["b"]) == {}


@pytest.mark.req("R-021")
async def test_decorated_and_dict_registrations_mix() -> None:
    reg = Registry()

    async def cb(i: Any, t: Any, c: Any) -> dict[str, Any]:
        return {"systemMessage": c.callback_id}

    reg.add_hooks({"Notification": [HookMatcher(hooks=[cb, cb])]})
    async with served(reg) as (peer, _):
        note = event_input("Notification", message="m", notification_type="info")
        await peer.send(hook_request("x", "hook_2", note))
        assert payload(await peer.recv()) == {"systemMessage": "hook_2"}


async def test_a_callback_may_ask_for_a_typed_input() -> None:
    from hookd.events import PreToolUseInput

    seen: list[object] = []

    async def typed(data: PreToolUseInput, tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        seen.append(data)
        return {"systemMessage": f"{data.tool_name}: {data.tool_input['command']}"}

    reg = Registry()
    reg.add("PreToolUse", typed)
    async with served(reg) as (peer, _):
        await peer.send(hook_request("t", "hook_1", pre_tool_use(extra_field=1)))
        assert payload(await peer.recv()) == {"systemMessage": "Bash: ls"}
    assert isinstance(seen[0], PreToolUseInput)


@pytest.mark.req("R-122")
async def test_requests_beyond_the_byte_budget_are_refused(
    autojump_clock: trio.testing.MockClock,
) -> None:
    hang = hook_request("h0", "hook_4", pre_tool_use("Hang", padding="x" * 400))
    size = len(json.dumps(hang))
    async with served(basic(), ServeConfig(max_in_flight_bytes=2 * size + 10)) as (peer, server):
        await peer.send(*[hang | {"request_id": f"h{i}"} for i in range(3)])
        text, code = error(await peer.recv())
        assert code == "overloaded" and f"limit {2 * size + 10}" in text
        assert server.in_flight == 2
        await peer.send({"type": "control_cancel_request", "request_id": "h0"})
        await peer.send(hang | {"request_id": "h3"})  # room again once h0 is withdrawn
        await peer.expect_silence(0.2)
        assert server.in_flight == 2


def _session_registry() -> Registry:
    registry = Registry()

    async def count(input_data: dict[str, Any], tool_use_id: str | None, ctx: Any) -> Any:
        ctx.state["n"] = ctx.state.get("n", 0) + 1
        return {"systemMessage": f"seen {ctx.state['n']}"}

    async def end(input_data: dict[str, Any], tool_use_id: str | None, ctx: Any) -> Any:
        return {"systemMessage": f"ended after {ctx.state.get('n', 0)}"}

    registry.add("SessionStart", count)  # hook_1
    registry.add("SessionEnd", end)  # hook_2
    return registry


async def _start(peer: Any, request_id: str, session_id: str) -> Any:
    start = event_input("SessionStart", source="startup", session_id=session_id)
    await peer.send(hook_request(request_id, "hook_1", start))
    return payload(await peer.recv())["systemMessage"]


@pytest.mark.req("R-077")
async def test_session_state_is_freed_when_its_session_end_is_answered() -> None:
    registry = _session_registry()
    async with served(registry) as (peer, _):
        assert await _start(peer, "a", "s1") == "seen 1"
        assert await _start(peer, "b", "s1") == "seen 2"
        end = event_input("SessionEnd", reason="exit", session_id="s1")
        await peer.send(hook_request("c", "hook_2", end))
        assert payload(await peer.recv()) == {"systemMessage": "ended after 2"}
        assert "s1" not in registry.state
        assert await _start(peer, "d", "s1") == "seen 1"


@pytest.mark.req("R-077")
async def test_session_states_are_capped_oldest_idle_first() -> None:
    registry = _session_registry()
    registry.state.max_sessions = 2
    async with served(registry) as (peer, _):
        assert await _start(peer, "a", "s1") == "seen 1"
        assert await _start(peer, "b", "s2") == "seen 1"
        assert await _start(peer, "c", "s1") == "seen 2"  # s2 is now the idle one
        assert await _start(peer, "d", "s3") == "seen 1"  # evicts s2
        assert list(registry.state) == ["s1", "s3"]
        assert await _start(peer, "e", "s1") == "seen 3"
        assert await _start(peer, "f", "s2") == "seen 1"  # s2 started over
