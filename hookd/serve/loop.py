"""The trio side of ``hookd serve``: signals, the optional transcript tee, the server."""

from __future__ import annotations

import os
import signal

import structlog
import trio

from hookd import logs as hookd_log
from hookd.core.registry import Registry
from hookd.serve.config import ServeConfig
from hookd.serve.server import Server
from hookd.transcript.tee import tee_from_env

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hookd.engine.decisions import DecisionLog

__all__ = ["serve_fds"]

log = structlog.get_logger("hookd.service")


async def serve_fds(
    registry: Registry,
    config: ServeConfig,
    fds: tuple[int, int],
    *,
    hooks: str | None,
    early: bytes = b"",
    decisions: DecisionLog | None = None,
) -> None:
    """Serve on the two protocol fds until EOF or SIGTERM/SIGINT.

    ``early`` is input already read (after the ``initialize`` requests
    answered before the server started).
    """
    fd_in, fd_out = fds
    hookd_log.attach()
    hookd_log.redact_with(registry.redact)
    server = Server(registry, config)
    if decisions is not None:
        server.kernel.decisions = decisions
    server.prime(early)
    stop = trio.Event()
    log.info("service.started", hooks=len(registry), pid=os.getpid())
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_watch_signals, stop)
        receive, send = tee_from_env(
            trio.lowlevel.FdStream(fd_in), trio.lowlevel.FdStream(fd_out), hooks=hooks,
            patterns=lambda: server.registry.redact,
        )  # fmt: skip
        await server.serve(receive, send, stop=stop)
        nursery.cancel_scope.cancel()
    log.info("service.stopped", answered=server.answered)


async def _watch_signals(stop: trio.Event) -> None:
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for signum in signals:
            log.info("service.signal", signal=signal.Signals(signum).name)
            stop.set()
