"""One TCP connection of the HTTP server: read a request, check it, answer it, repeat.

Reading is bounded in time by phase: a connection waiting for its next
request may stay idle ``idle_timeout_s``; once the first byte of a head is in,
the whole head must arrive within ``header_timeout_s`` and then the body within
``body_timeout_s`` (a client trickling bytes is cut off). Until a head has
passed the gate (shown the token), the connection has ``auth_timeout_s`` from
accept in all. The connection's own cancel scope carries that deadline while
it waits, and closes it when it passes. Every answer is one write
(:mod:`~hookd.serve.http.sockio`). A refused request is answered and the
connection closed.
"""

from __future__ import annotations

import contextlib
import math
from typing import Final, Protocol

import msgspec
import structlog
import trio

from hookd.serve.http import sockio
from hookd.serve.http.agent_answer import AgentAnswers
from hookd.serve.http.answer import HttpAnswers, HttpReply
from hookd.serve.http.codec import NEED_DATA, Codec, Head, Phase, Refusal, Request
from hookd.serve.http.config import HttpConfig
from hookd.serve.http.gate import AUTH_FAILURE_DELAY_S, Gate, Route
from hookd.serve.http.session_record import SessionRecordings

__all__ = ["Connection", "linger"]

log = structlog.get_logger("hookd.http")

READ_SIZE: Final = 64 * 1024
#: After a refusal, how long the unread rest of a request is drained before closing.
LINGER_S: Final = 1.0
LINGER_BYTES: Final = 4 * 1024 * 1024

_encoder: Final = msgspec.json.Encoder()
_UNAUTHORIZED: Final = ((b"www-authenticate", b'Bearer realm="hookd"'),)
_OVERLOADED: Final = Refusal(503, "too many connections")


class Server(Protocol):
    """What a connection needs of its server."""

    config: HttpConfig
    gate: Gate
    hooks: HttpAnswers
    agents: AgentAnswers
    recorder: SessionRecordings | None

    def activity(self, delta: int) -> None: ...

    def admit(self, conn: Connection) -> bool: ...

    def status_body(self) -> bytes: ...


class Connection:
    """Serves the requests of one accepted socket, one after another (keep-alive)."""

    def __init__(self, server: Server, stream: trio.SocketStream, number: int) -> None:
        self.server = server
        self.stream = stream
        self.number = number
        self.codec = Codec(max_body_bytes=server.config.max_body_bytes)
        self.scope = trio.CancelScope()
        self._fd = stream.socket.fileno()
        self.idle = True  # waiting for a request, no byte of it yet: may be evicted
        self.authenticated = False  # a head of this connection has passed the gate
        self._accepted_at = trio.current_time()
        self._head_at = 0.0
        self._body_at = 0.0

    async def run(self) -> None:
        """Serve until the peer closes, a timeout, a refusal, or eviction."""
        gone = (trio.BrokenResourceError, trio.ClosedResourceError, OSError)
        with self.scope, contextlib.suppress(*gone):
            while await self._serve_one():
                pass
        with trio.CancelScope(shield=True), contextlib.suppress(Exception):
            await self.stream.aclose()

    async def _serve_one(self) -> bool:
        """One request and its answer; True when the connection stays open."""
        head = await self._read()
        if not isinstance(head, Head):
            return await self._refuse_or_close(head)
        route = self.server.gate.check(head)
        if isinstance(route, Refusal):
            self.server.hooks.stats.refused += 1
            return await self._refuse(route)
        if not (self.authenticated or self._admit()):
            return await self._refuse(_OVERLOADED)
        if route.kind == "status":
            await self._send(self.codec.answer(200, self.server.status_body(), extra=route.extra))
            return self.codec.next_cycle()
        request = await self._read()
        if not isinstance(request, Request):
            return await self._refuse_or_close(request)
        if route.kind == "record":
            return await self._answer_record(route, request)
        return await self._answer_hook(route, request)

    def _admit(self) -> bool:
        """The first head past the gate: join the server's budget of authenticated connections."""
        self.authenticated = self.server.admit(self)
        return self.authenticated

    async def _answer_record(self, route: Route, request: Request) -> bool:
        recorder = self.server.recorder
        if recorder is None:
            status, body = 404, _encoder.encode({"error": "this server does not record"})
        else:
            status, body = recorder.control(route.event or "", request.body)
        await self._send(self.codec.answer(status, body, extra=route.extra))
        return self.codec.next_cycle()

    async def _answer_hook(self, route: Route, request: Request) -> bool:
        server = self.server
        server.activity(+1)
        try:
            if server.recorder is not None:
                server.recorder.request(self.number, request)
            if route.kind == "agent":
                answer: HttpReply = await server.agents.post(route.event or "", request.body)
            else:
                answer = await server.hooks.post(route.event, request.body)
            if server.recorder is not None:
                server.recorder.answer(self.number, answer.status, answer.body)
        finally:
            server.activity(-1)
        extra = route.extra + answer.headers
        await self._send(self.codec.answer(answer.status, answer.body, extra=extra))
        return self.codec.next_cycle()

    async def _refuse_or_close(self, event: object) -> bool:
        if isinstance(event, Refusal):
            return await self._refuse(event)
        return False  # closed by the peer, or timed out

    async def _refuse(self, refusal: Refusal) -> bool:
        if refusal.status == 401:  # logged without the token; slowed, on this connection only
            log.warning("http.auth_failed", conn=self.number)
            await trio.sleep(AUTH_FAILURE_DELAY_S)
        body = _encoder.encode({"error": refusal.message})
        extra = _UNAUTHORIZED if refusal.status == 401 else ()
        await self._send(self.codec.answer(refusal.status, body, close=True, extra=extra))
        await linger(self.stream)
        return False

    async def _send(self, data: bytes) -> None:
        await sockio.send(self._fd, data)

    async def _read(self) -> Head | Request | Refusal | object:
        """The next head or request; a refusal; or ``CLOSED`` (a timeout cancels ``self.scope``)."""
        while True:
            event = self.codec.next()
            if event is not NEED_DATA:
                self.idle = False
                self._body_at = trio.current_time()
                return event
            # the connection's own scope bounds the wait: past it, the connection just closes
            self.scope.deadline = self._deadline()
            data = await sockio.receive(self._fd, READ_SIZE)
            self.scope.deadline = math.inf
            if data and self.codec.phase is Phase.IDLE:
                self._head_at = trio.current_time()
            self.codec.feed(data)

    def _deadline(self) -> float:
        deadline = self._phase_deadline()
        if self.authenticated:
            return deadline
        return min(deadline, self._accepted_at + self.server.config.auth_timeout_s)

    def _phase_deadline(self) -> float:
        config = self.server.config
        phase = self.codec.phase
        if phase is Phase.IDLE:
            self.idle = True
            return trio.current_time() + config.idle_timeout_s
        self.idle = False
        if phase is Phase.HEAD:
            return self._head_at + config.header_timeout_s
        return self._body_at + config.body_timeout_s if phase is Phase.BODY else 0.0


async def linger(stream: trio.SocketStream) -> None:
    """Half-close, then read and drop what the peer still sends, for a moment.

    Closing with unread bytes makes the kernel reset the connection, which can
    destroy the answer before the peer reads it.
    """
    with contextlib.suppress(Exception):
        await stream.send_eof()
    drained = 0
    with trio.move_on_after(LINGER_S), contextlib.suppress(Exception):
        while drained < LINGER_BYTES:
            data = await stream.receive_some(READ_SIZE)
            if not data:
                break
            drained += len(data)
