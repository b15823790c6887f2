"""Replaying over HTTP: an ``http`` transcript POSTed to ``hookd serve HOOKS --http``.

The server listens on a free port with a token of the replayer's own, and
says the port in its ready file. Each recorded connection gets one keep-alive
connection of its own, its requests sent one at a time; each answer is
delivered as the answer to the request it came back for. At the end the
server gets SIGTERM and must exit 0.
"""

from __future__ import annotations

import json
import secrets
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import h11
import msgspec
import trio

from hookd.transcript.transport import START_TIMEOUT_S, Transport, serve_command

if TYPE_CHECKING:
    from hookd.transcript.format import Entry
    from hookd.transcript.plan import Step
    from hookd.transcript.session import ReplayConfig, ReplayResult

__all__ = ["HttpTransport"]

HOST: Final = "127.0.0.1"
READ_BYTES: Final = 65536
_decoder: Final = msgspec.json.Decoder()

Sent = tuple["Step", Any]


class HttpTransport(Transport):
    """One keep-alive connection per recorded connection."""

    def __init__(self, result: ReplayResult, config: ReplayConfig, folder: Path) -> None:
        super().__init__(result, config, folder)
        self.token_file, self.ready_file = folder / "token", folder / "ready.json"
        self.token = secrets.token_hex(16)
        self.token_file.write_text(self.token)
        self.token_file.chmod(0o600)
        self._command = serve_command(
            result, config, "--http", f"{HOST}:0", "--token-file", str(self.token_file),
            "--ready-file", str(self.ready_file), "--log-level", "warning",
        )  # fmt: skip
        self.port = 0
        self._channels: dict[int, trio.MemorySendChannel[Sent]] = {}
        self._connections: trio.Nursery | None = None
        self._all_sent = trio.Event()
        self._all_done = trio.Event()

    @property
    def command(self) -> list[str]:
        return self._command

    async def start(self, nursery: trio.Nursery) -> bool:
        await self.spawn(nursery, stdin=subprocess.DEVNULL, stdout=None)
        port = await self._wait_ready()
        if port is None:
            return False
        self.port = port
        await nursery.start(self._hold_connections)
        return True

    async def send(self, step: Step, msg: Any) -> bool:
        assert self._connections is not None
        conn = step.entry.conn or 0
        if conn not in self._channels:
            send, receive = trio.open_memory_channel[Sent](len(self.result.plan.steps))
            self._channels[conn] = send
            self._connections.start_soon(self._connection, receive)
        try:
            self._channels[conn].send_nowait((step, msg))
        except trio.BrokenResourceError:  # its connection gave up on an earlier request
            where = step.entry.lineno
            self.result.errors.append(f"line {where} not sent: its connection had failed")
            return False
        return True

    async def drain(self) -> None:
        """Wait until every request sent got its answer (or its connection gave up)."""
        for channel in self._channels.values():
            channel.close()
        self._all_sent.set()
        await self._all_done.wait()

    async def stop(self) -> None:
        if self._connections is not None:
            self._connections.cancel_scope.cancel()
        assert self.proc is not None
        if self.proc.returncode is None:
            self.proc.terminate()
        await self.wait_exit("SIGTERM", " on SIGTERM")

    async def _wait_ready(self) -> int | None:
        """The port once the server wrote its ready file; None if it exited or never did."""
        assert self.proc is not None
        with trio.move_on_after(START_TIMEOUT_S):
            while self.proc.poll() is None:
                if self.ready_file.exists():
                    return int(json.loads(self.ready_file.read_text())["port"])
                await trio.sleep(0.01)
            code = self.proc.returncode
            self.result.errors.append(f"hookd exited with code {code} before listening")
            return None
        self.result.errors.append(f"hookd did not start listening within {START_TIMEOUT_S:g}s")
        return None

    async def _hold_connections(
        self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        """The nursery of the connections, open until every request was sent."""
        try:
            async with trio.open_nursery() as nursery:
                self._connections = nursery
                task_status.started()
                await self._all_sent.wait()
        finally:
            self._all_done.set()

    async def _connection(self, receive: trio.MemoryReceiveChannel[Sent]) -> None:
        """One recorded connection: its requests in order, each after the last answer."""
        client: _Client | None = None
        timeout_s = self.config.timeout_s
        async with receive:
            async for step, msg in receive:
                line = step.entry.lineno
                with trio.move_on_after(timeout_s) as waited:
                    try:
                        if client is None or client.closed:
                            stream = await trio.open_tcp_stream(HOST, self.port)
                            client = _Client(stream, self.token)
                        status, body = await client.post(step.entry, msg)
                    except (OSError, trio.BrokenResourceError, h11.ProtocolError) as exc:
                        self.result.errors.append(f"no answer to line {line}: {exc}")
                        return
                if waited.cancelled_caught:
                    self.result.errors.append(f"no answer to line {line} within {timeout_s:g}s")
                    return
                self._deliver(step, status, body)
        if client is not None and not client.closed:
            await client.stream.aclose()

    def _deliver(self, step: Step, status: int, body: bytes) -> None:
        try:
            msg, raw = _decoder.decode(body), None
        except msgspec.DecodeError:
            msg, raw = None, body.decode("utf-8", "replace")
        self.result.answers.deliver(msg, step.key, status=status, raw=raw)


class _Client:
    """One keep-alive client connection (h11)."""

    def __init__(self, stream: trio.SocketStream, token: str) -> None:
        self.stream = stream
        self.token = token
        self.conn = h11.Connection(h11.CLIENT)
        self.closed = False

    async def post(self, request: Entry, msg: Any) -> tuple[int, bytes]:
        http = request.http or {}
        body = request.raw.encode() if request.raw is not None else json.dumps(msg).encode()
        headers = [
            ("Host", HOST),
            ("Authorization", f"Bearer {self.token}"),
            ("Content-Type", "application/json"),
            ("Content-Length", str(len(body))),
        ]
        method, target = str(http.get("method", "POST")), str(http.get("target", "/hook"))
        data = self.conn.send(h11.Request(method=method, target=target, headers=headers))
        data += (self.conn.send(h11.Data(data=body)) or b"") + (
            self.conn.send(h11.EndOfMessage()) or b""
        )
        await self.stream.send_all(data)
        return await self._reply()

    async def _reply(self) -> tuple[int, bytes]:
        status, chunks = 0, []
        while True:
            event = self.conn.next_event()
            if event is h11.NEED_DATA:
                self.conn.receive_data(await self.stream.receive_some(READ_BYTES))
            elif isinstance(event, h11.Response):
                status = event.status_code
            elif isinstance(event, h11.Data):
                chunks.append(bytes(event.data))
            elif isinstance(event, h11.EndOfMessage):
                if self.conn.our_state is h11.DONE and self.conn.their_state is h11.DONE:
                    self.conn.start_next_cycle()
                else:  # hookd closes after this answer: reconnect next time
                    self.closed = True
                    await self.stream.aclose()
                return status, b"".join(chunks)
            elif isinstance(event, h11.ConnectionClosed):
                raise trio.BrokenResourceError("hookd closed the connection")
