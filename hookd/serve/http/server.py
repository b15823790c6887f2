"""The HTTP server: accepts connections on one listener and serves each in one nursery.

Connections are counted in two budgets. A new connection has not shown the
token yet: at most ``max_unauthenticated`` such connections are open, and one
more closes the oldest of them (so a program without the token, holding
half-sent heads, only ever crowds out its own connections). A connection whose
first head passes the gate joins the ``max_connections`` budget of
authenticated ones; when that is full, the longest-idle keep-alive connection
(one waiting for its next request, with no byte of it yet) is closed to make
room, and if every one is busy the newcomer is answered 503 and closed.
"""

from __future__ import annotations

import os
import time
from functools import partial
from typing import Any, Final

import msgspec
import structlog
import trio

from hookd.serve.http.agent_answer import AgentAnswers
from hookd.serve.http.answer import HttpAnswers
from hookd.serve.http.config import HttpConfig
from hookd.serve.http.connection import Connection
from hookd.serve.http.gate import Gate
from hookd.serve.http.session_record import SessionRecordings

__all__ = ["HttpConfig", "HttpServer"]

log = structlog.get_logger("hookd.http")

_encoder: Final = msgspec.json.Encoder()


class HttpServer:
    """Serves :class:`HttpAnswers` over HTTP/1.1 with keep-alive, behind a :class:`Gate`."""

    def __init__(
        self,
        hooks: HttpAnswers,
        gate: Gate,
        config: HttpConfig,
        *,
        recorder: SessionRecordings | None = None,
    ) -> None:
        self.hooks = hooks
        self.agents = AgentAnswers(hooks.kernel)  # one kernel: stats, state, notes
        self.gate = gate
        self.config = config
        self.recorder = recorder
        self.started = time.time()
        self.port = 0
        #: The listening sockets' file descriptors while serving (the ready file holds its port).
        self.listening_fds: tuple[int, ...] = ()
        self.connections: dict[int, Connection] = {}  # every open one, oldest first
        self._waiting: dict[int, Connection] = {}  # those not past the gate yet, oldest first
        self._opened = 0
        self._in_flight = 0
        self._last_activity = 0.0

    # -- serving ------------------------------------------------------------

    async def serve(self, *, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        """Listen, report the port through ``task_status``, serve until cancelled or idle."""
        config = self.config
        # trio.serve_tcp in two steps, so that a port in use is a plain OSError
        listeners = await trio.open_tcp_listeners(config.port, host=config.host)
        async with trio.open_nursery() as nursery:
            serve = partial(trio.serve_listeners, self._handle, listeners, handler_nursery=nursery)
            await nursery.start(serve)
            self.port = listeners[0].socket.getsockname()[1]
            self.listening_fds = tuple(listener.socket.fileno() for listener in listeners)
            self._last_activity = trio.current_time()
            log.info("http.listening", host=config.host, port=self.port, pid=os.getpid())
            if config.idle_exit_s is not None:
                nursery.start_soon(self._idle_exit, nursery.cancel_scope, config.idle_exit_s)
            task_status.started(self.port)

    async def _handle(self, stream: trio.SocketStream) -> None:
        self._opened += 1
        if len(self._waiting) >= self.config.max_unauthenticated:
            self._drop_oldest_waiting()
        conn = Connection(self, stream, self._opened)
        self.connections[conn.number] = self._waiting[conn.number] = conn
        try:
            await conn.run()
        finally:
            self.connections.pop(conn.number, None)
            self._waiting.pop(conn.number, None)

    def admit(self, conn: Connection) -> bool:
        """``conn`` showed the token: it joins the authenticated budget; False when that is
        full of busy connections (or ``conn`` was closed meanwhile)."""
        if conn.number not in self._waiting:
            return False
        admitted = len(self.connections) - len(self._waiting)
        if admitted >= self.config.max_connections and not self._evict_idle():
            log.warning("http.overloaded", connections=admitted)
            return False
        del self._waiting[conn.number]
        return True

    def _drop_oldest_waiting(self) -> None:
        """Close the oldest connection that has not shown the token, to make room for a new one."""
        number, conn = next(iter(self._waiting.items()))
        self._close(number, conn)
        log.debug("http.evicted", connection=number, authenticated=False)  # no flood under attack

    def _evict_idle(self) -> bool:
        """Close the longest-idle authenticated connection; False when none is idle."""
        for number, conn in self.connections.items():
            if conn.idle and number not in self._waiting and not conn.scope.cancel_called:
                self._close(number, conn)
                log.info("http.evicted", connection=number, authenticated=True)
                return True
        return False

    def _close(self, number: int, conn: Connection) -> None:
        """Cancel ``conn`` and take it out of the counts at once: its task may need a few
        scheduler passes more to close its socket, and the newcomer is served meanwhile."""
        conn.scope.cancel()
        self.connections.pop(number, None)
        self._waiting.pop(number, None)

    # -- activity and idle exit --------------------------------------------

    def activity(self, delta: int) -> None:
        """A hook request starts (+1) or ends (-1)."""
        self._in_flight += delta
        self._last_activity = trio.current_time()

    async def _idle_exit(self, scope: trio.CancelScope, idle_s: float) -> None:
        while True:
            await trio.sleep_until(self._last_activity + idle_s)
            idle = trio.current_time() - self._last_activity
            if self._in_flight == 0 and idle >= idle_s:
                log.info("http.idle_exit", idle_s=idle_s)
                scope.cancel()
                return
            if self._in_flight:
                self._last_activity = trio.current_time()

    # -- status -------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """The ``GET /status`` object (with the decision counts when a decision log is kept)."""
        holder = self.hooks.holder
        found: dict[str, Any] = {
            "pid": os.getpid(),
            "module": holder.module,
            "host": self.config.host,
            "port": self.port,
            "started": self.started,
            "uptime_s": round(time.time() - self.started, 3),
            "last_reload": holder.last_reload,
            "reload_error": holder.reload_error,
            "loaded": holder.current is not None,
            "connections": len(self.connections),
            "requests": self.hooks.stats.requests,
            "refused": self.hooks.stats.refused,
            "hooks": self.hooks.stats.rows(holder.current),
            "agents": self.hooks.stats.agent_rows(),
            "unrouted": holder.unrouted(),
        }
        decisions = self.hooks.kernel.decisions
        if decisions is not None:
            found["decisions"] = dict(decisions.counts)
            for agent, row in found["agents"].items():
                row["decisions"] = dict(decisions.agent_counts.get(agent, {}))
            found["shadow_decisions"] = dict(decisions.shadow_counts)
            store = decisions.status()
            if store is not None:
                found["decision_log"] = store
        return found

    def status_body(self) -> bytes:
        return _encoder.encode(self.status())
