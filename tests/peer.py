"""A test peer: plays the CLI against a hookd server over streams or a real process."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import trio
import trio.testing

from hookd.core.registry import Registry
from hookd.serve.config import ServeConfig
from hookd.serve.server import Server


def hook_request(
    request_id: str, callback_id: str, input_data: dict[str, Any], tool_use_id: str | None = None
) -> dict[str, Any]:
    """A control-protocol ``hook_callback`` request."""
    return {
        "type": "control_request",
        "request_id": request_id,
        "request": {
            "subtype": "hook_callback",
            "callback_id": callback_id,
            "input": input_data,
            "tool_use_id": tool_use_id,
        },
    }


def pre_tool_use(tool_name: str = "Bash", **extra: Any) -> dict[str, Any]:
    """A realistic PreToolUse input."""
    return {
        "session_id": "s1",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": "/tmp",
        "hook_event_name": "PreToolUse",
        "tool_name": tool_name,
        "tool_input": {"command": "ls"},
        "tool_use_id": "toolu_1",
        **extra,
    }


def event_input(event: str, **extra: Any) -> dict[str, Any]:
    """A minimal valid input for ``event`` (common fields plus ``extra``)."""
    return {
        "session_id": "s1",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": "/tmp",
        "hook_event_name": event,
        **extra,
    }


class Peer:
    """The CLI's side of a connection: write requests, read answers as JSON."""

    def __init__(self, send: trio.abc.SendStream, receive: trio.abc.ReceiveStream) -> None:
        self._send = send
        self._receive = receive
        self._buf = b""
        self.raw_lines: list[bytes] = []

    async def send(self, *messages: dict[str, Any] | list[Any] | bytes) -> None:
        data = b"".join(
            m if isinstance(m, bytes) else json.dumps(m).encode() + b"\n" for m in messages
        )
        await self._send.send_all(data)

    async def recv(self, timeout: float = 10) -> Any:
        """The next answer line, parsed (fails the test after ``timeout`` s)."""
        with trio.fail_after(timeout):
            while b"\n" not in self._buf:
                data = await self._receive.receive_some(65536)
                if not data:
                    raise EOFError("hookd closed its output")
                self._buf += data
        line, self._buf = self._buf.split(b"\n", 1)
        self.raw_lines.append(line)
        return json.loads(line)

    async def recv_many(self, n: int, timeout: float = 10) -> dict[Any, Any]:
        """``n`` answers keyed by request id (control or JSON-RPC)."""
        out: dict[Any, Any] = {}
        for _ in range(n):
            msg = await self.recv(timeout)
            out[answer_id(msg)] = msg
        return out

    async def expect_silence(self, seconds: float) -> None:
        """Assert that nothing arrives for ``seconds``."""
        with trio.move_on_after(seconds):
            msg = await self.recv(seconds + 1)
            raise AssertionError(f"unexpected answer: {msg}")

    async def close(self) -> None:
        await self._send.aclose()

    async def read_to_eof(self, timeout: float = 10) -> bytes:
        with trio.fail_after(timeout):
            while True:
                data = await self._receive.receive_some(65536)
                if not data:
                    return self._buf
                self._buf += data


def answer_id(msg: Any) -> Any:
    """The request id an answer is for."""
    if isinstance(msg, dict) and msg.get("type") == "control_response":
        return msg["response"]["request_id"]
    if isinstance(msg, dict):
        return msg.get("id")
    return None


def payload(msg: dict[str, Any]) -> Any:
    """A control success payload (fails loudly on an error answer)."""
    resp = msg["response"]
    assert resp["subtype"] == "success", resp
    return resp["response"]


def error(msg: dict[str, Any]) -> tuple[str, str]:
    """``(error text, error_code)`` of a control error answer."""
    resp = msg["response"]
    assert resp["subtype"] == "error", resp
    return resp["error"], resp["error_code"]


@asynccontextmanager
async def served(
    registry: Registry, config: ServeConfig | None = None
) -> AsyncIterator[tuple[Peer, Server]]:
    """A server over in-memory streams; closing the peer's side is EOF."""
    to_server, server_in = trio.testing.memory_stream_one_way_pair()
    server_out, from_server = trio.testing.memory_stream_one_way_pair()
    server = Server(registry, config)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(server.serve, server_in, server_out)
        peer = Peer(to_server, from_server)
        yield peer, server
        await peer.close()


@asynccontextmanager
async def hookd_process(
    *args: str, stderr: int | None = None
) -> AsyncIterator[tuple[Peer, trio.Process]]:
    """A real ``hookd`` process on pipes; killed if still running at the end."""
    import subprocess
    import sys

    argv = [sys.executable, "-m", "hookd", *args]
    proc = await trio.lowlevel.open_process(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        yield Peer(proc.stdin, proc.stdout), proc
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
