"""Replaying an ``http`` transcript: its requests POSTed to a fresh ``hookd serve --http``.

Each recorded connection gets one keep-alive connection of its own; a request
is sent once every answer recorded before it has arrived (the causal order of
the recording, as for stdio replays). Each answer is compared with the
recorded one: the status, and the body as parsed JSON (see
:mod:`hookd.transcript.jsondiff`). At the end the server gets SIGTERM and must
exit 0.
"""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import h11
import msgspec
import trio

from hookd.transcript.format import FROM_HOOKD, TO_HOOKD, Entry, Transcript, TranscriptError
from hookd.transcript.jsondiff import compare
from hookd.transcript.session import ReplayConfig

__all__ = ["HttpReplayResult", "replay_http"]

START_TIMEOUT_S: Final = 30.0
_decoder: Final = msgspec.json.Decoder()


@dataclass(slots=True)
class Exchange:
    """One recorded request and the answer recorded for it (None: never answered)."""

    request: Entry
    answer: Entry | None
    after: int  # answers recorded before the request


@dataclass(slots=True)
class HttpReplayResult:
    """What an HTTP replay found."""

    transcript: Transcript
    command: list[str]
    exchanges: list[Exchange] = field(default_factory=list)
    matched: int = 0
    differences: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    returncode: int | None = None
    stderr: bytearray = field(default_factory=bytearray)

    @property
    def ok(self) -> bool:
        return not (self.differences or self.errors)

    def report(self) -> str:
        """A one-line verdict, then each difference and error."""
        where = self.transcript.path or "<transcript>"
        expected = sum(1 for e in self.exchanges if e.answer is not None)
        verdict = "PASS" if self.ok else "FAIL"  # the words of the stdio report
        lines = [f"{verdict} {where}: {self.matched}/{expected} answers match (http)"]
        lines += [f"  {d}" for d in self.differences + self.errors]
        if not self.ok and self.stderr:
            tail = bytes(self.stderr[-2000:]).decode("utf-8", "replace")
            lines.append("  hookd stderr (tail):\n    " + tail.replace("\n", "\n    "))
        return "\n".join(lines)


def pair_exchanges(transcript: Transcript) -> list[Exchange]:
    """Each request with the next answer recorded on its connection."""
    open_requests: dict[int, list[Exchange]] = {}
    out: list[Exchange] = []
    answers = 0
    for entry in transcript.entries:
        conn = entry.conn if entry.conn is not None else 0
        if entry.dir == TO_HOOKD:
            exchange = Exchange(entry, None, answers)
            out.append(exchange)
            open_requests.setdefault(conn, []).append(exchange)
        elif entry.dir == FROM_HOOKD:
            answers += 1
            waiting = open_requests.get(conn) or []
            if not waiting:
                raise TranscriptError(f"line {entry.lineno}: an answer with no request before it")
            waiting.pop(0).answer = entry
    return out


def _command(transcript: Transcript, config: ReplayConfig, folder: Path) -> list[str]:
    hooks = config.hooks or transcript.hooks_spec()
    if hooks is None:
        raise TranscriptError("no hooks module: pass --hooks or name one in the header")
    token = folder / "token"
    token.write_text(secrets.token_hex(16))
    token.chmod(0o600)
    return [
        sys.executable, "-m", "hookd", "serve", hooks, "--http", "127.0.0.1:0",
        "--token-file", str(token), "--ready-file", str(folder / "ready.json"),
        "--log-level", "warning", *transcript.header.serve_args, *config.serve_args,
    ]  # fmt: skip


async def replay_http(transcript: Transcript, config: ReplayConfig) -> HttpReplayResult:
    """Replay ``transcript`` (an ``http`` one) against a fresh server process."""
    with tempfile.TemporaryDirectory(prefix="hookd-replay-") as tmp:
        folder = Path(tmp)
        result = HttpReplayResult(transcript, _command(transcript, config, folder))
        result.exchanges = pair_exchanges(transcript)
        proc = await trio.lowlevel.open_process(
            result.command, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        try:
            async with trio.open_nursery() as nursery:
                assert proc.stderr is not None
                nursery.start_soon(_read_stderr, proc.stderr, result.stderr)
                port = await _wait_ready(proc, folder / "ready.json", result)
                if port is not None:
                    token = (folder / "token").read_text()
                    await _Player(result, port, token, config.timeout_s).play()
                await _stop(proc, result, config.timeout_s)
                nursery.cancel_scope.deadline = trio.current_time() + config.timeout_s
        finally:
            if proc.returncode is None:
                proc.kill()
            with trio.CancelScope(shield=True):
                await proc.wait()
    return result


async def _read_stderr(stream: trio.abc.ReceiveStream, tail: bytearray) -> None:
    async for chunk in stream:
        tail += chunk
        del tail[:-65536]


async def _wait_ready(proc: trio.Process, ready: Path, result: HttpReplayResult) -> int | None:
    """The port once the server wrote its ready file; None if it exited or never did."""
    with trio.move_on_after(START_TIMEOUT_S):
        while proc.poll() is None:
            if ready.exists():
                return int(json.loads(ready.read_text())["port"])
            await trio.sleep(0.01)
        result.errors.append(f"hookd exited with code {proc.returncode} before listening")
        return None
    result.errors.append(f"hookd did not start listening within {START_TIMEOUT_S:g}s")
    return None


async def _stop(proc: trio.Process, result: HttpReplayResult, timeout_s: float) -> None:
    if proc.returncode is None:
        proc.terminate()
    with trio.move_on_after(timeout_s):
        result.returncode = await proc.wait()
        if result.returncode != 0:
            result.errors.append(f"hookd exited with code {result.returncode} on SIGTERM")
        return
    result.errors.append(f"hookd did not exit within {timeout_s:g}s of SIGTERM")


class _Player:
    """Sends each exchange on its connection once the answers before it have arrived."""

    def __init__(self, result: HttpReplayResult, port: int, token: str, timeout_s: float) -> None:
        self.result, self.port, self.token, self.timeout_s = result, port, token, timeout_s
        self.arrived = 0  # answers arrived, in recorded order: the low-water mark
        self._done: set[int] = set()
        self._changed = trio.Event()
        self._order = [i for i, e in enumerate(result.exchanges) if e.answer is not None]

    async def play(self) -> None:
        conns: dict[int, trio.MemorySendChannel[Exchange]] = {}
        async with trio.open_nursery() as nursery:
            for exchange in self.result.exchanges:
                if not await self._wait_for(exchange.after):
                    nursery.cancel_scope.cancel()
                    return
                conn = exchange.request.conn or 0
                if conn not in conns:
                    send, receive = trio.open_memory_channel[Exchange](1000)
                    conns[conn] = send
                    nursery.start_soon(self._connection, receive)
                conns[conn].send_nowait(exchange)
            for send in conns.values():
                send.close()

    async def _wait_for(self, count: int) -> bool:
        with trio.move_on_after(self.timeout_s):
            while self.arrived < count:
                self._changed = trio.Event()
                await self._changed.wait()
            return True
        self.result.errors.append(f"answers still missing after {self.timeout_s:g}s")
        return False

    def _arrive(self, exchange: Exchange) -> None:
        self._done.add(self.result.exchanges.index(exchange))
        while self.arrived < len(self._order) and self._order[self.arrived] in self._done:
            self.arrived += 1
        self._changed.set()

    async def _connection(self, receive: trio.MemoryReceiveChannel[Exchange]) -> None:
        client: _Client | None = None
        async for exchange in receive:
            if client is None or client.closed:
                client = _Client(await trio.open_tcp_stream("127.0.0.1", self.port), self.token)
            with trio.move_on_after(self.timeout_s) as waited:
                status, body = await client.post(exchange.request)
            if waited.cancelled_caught:
                where = exchange.request.lineno
                self.result.errors.append(f"no answer to line {where} within {self.timeout_s:g}s")
                return
            self._check(exchange, status, body)
            self._arrive(exchange)
        if client is not None and not client.closed:
            await client.stream.aclose()

    def _check(self, exchange: Exchange, status: int, body: bytes) -> None:
        answer = exchange.answer
        line = exchange.request.lineno
        if answer is None:
            self.result.differences.append(f"line {line}: answered {status}, recorded no answer")
            return
        found = _differences(answer, status, body)
        if found:
            self.result.differences += [f"line {line} -> {answer.lineno}: {d}" for d in found]
        else:
            self.result.matched += 1


def _differences(answer: Entry, status: int, body: bytes) -> list[str]:
    recorded_status = (answer.http or {}).get("status")
    out = [] if recorded_status == status else [f"status: recorded {recorded_status}, got {status}"]
    try:
        got: Any = _decoder.decode(body) if body else None
    except msgspec.DecodeError:
        got = None
        if answer.raw != body.decode("utf-8", "replace"):
            out.append(f"body: recorded {answer.raw or answer.msg!r}, got {body!r}")
        return out
    return out + [d.describe() for d in compare(answer.msg, got)]


class _Client:
    """One keep-alive client connection (h11)."""

    def __init__(self, stream: trio.SocketStream, token: str) -> None:
        self.stream = stream
        self.token = token
        self.conn = h11.Connection(h11.CLIENT)
        self.closed = False

    async def post(self, request: Entry) -> tuple[int, bytes]:
        http = request.http or {}
        body = request.raw.encode() if request.raw is not None else json.dumps(request.msg).encode()
        headers = [
            ("Host", "127.0.0.1"),
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
                self.conn.receive_data(await self.stream.receive_some(65536))
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
