"""The HTTP server inside the test's own trio loop: the registry holder, sockets, idle exit."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
import trio

from hookd.core.loader import load_hooks
from hookd.core.registry import Registry
from hookd.serve.http.answer import HttpAnswers
from hookd.serve.http.config import HttpConfig
from hookd.serve.http.gate import Gate
from hookd.serve.http.holder import RegistryHolder
from hookd.serve.http.server import HttpServer
from tests.serve.http.client import HOOKS, TOKEN, Client
from tests.serve.http.test_transport import decision, pre


def registry() -> Registry:
    reg = Registry()
    load_hooks(str(HOOKS), reg)
    return reg


@asynccontextmanager
async def running(holder: RegistryHolder, **config: float) -> AsyncIterator[HttpServer]:
    server = HttpServer(HttpAnswers(holder), Gate(TOKEN), HttpConfig(**config))  # type: ignore[arg-type]
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve)
        yield server
        nursery.cancel_scope.cancel()


@pytest.mark.req("R-511")
async def test_no_registry_is_503_and_a_swap_takes_effect_on_the_next_request() -> None:
    holder = RegistryHolder(None, "hooks.py")
    async with running(holder) as server:
        client = await Client.connect(server.port)
        reply = await client.post("PreToolUse", pre("rm x"))
        assert reply.status == 503
        assert reply.headers.get("connection") != "close"  # the connection stays usable
        first = registry()
        holder.swap(first)
        denied = await client.post("PreToolUse", pre("count", session="kept"))
        assert decision(denied) == "allow"
        second = registry()
        holder.swap(second)
        assert second.state is first.state  # per-session state survives a reload
        again = await client.post("PreToolUse", pre("count", session="kept"))
        assert again.json()["hookSpecificOutput"]["permissionDecisionReason"] == "call 2"
        holder.failed("SyntaxError: broken")
        status = (await client.request("GET", "/status")).json()
        assert status["reload_error"] == "SyntaxError: broken"
        assert status["last_reload"] is not None
        assert status["loaded"] is True


@pytest.mark.req("R-503")
async def test_session_end_frees_the_session_state() -> None:
    holder = RegistryHolder(registry())
    async with running(holder) as server:
        client = await Client.connect(server.port)
        await client.post("PreToolUse", pre("count", session="gone"))
        assert "gone" in holder.current.state  # type: ignore[union-attr]
        end = {**pre("x", session="gone"), "hook_event_name": "SessionEnd", "reason": "other"}
        for key in ("tool_name", "tool_input", "tool_use_id", "permission_mode"):
            del end[key]
        assert (await client.post("SessionEnd", end)).status == 200
        assert "gone" not in holder.current.state  # type: ignore[union-attr]


@pytest.mark.req("R-512")
async def test_accepted_sockets_have_tcp_nodelay() -> None:
    async with running(RegistryHolder(registry())) as server:
        client = await Client.connect(server.port)
        await client.post("PreToolUse", pre("ls"))
        (conn,) = server.connections.values()
        assert conn.stream.socket.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0


@pytest.mark.req("R-510")
async def test_idle_exit_ends_serve_after_a_quiet_spell(autojump_clock: trio.abc.Clock) -> None:
    server = HttpServer(
        HttpAnswers(RegistryHolder(registry())), Gate(TOKEN), HttpConfig(idle_exit_s=300.0)
    )
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve)
        before = trio.current_time()
    assert trio.current_time() - before >= 300.0  # serve returned by itself
