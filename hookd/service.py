"""``hookd serve`` and ``hookd check``: the sidecar process around the server."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import structlog
import trio

from hookd import log as hookd_log
from hookd.errors import HookdError
from hookd.loader import load_hooks
from hookd.registry import Registry
from hookd.server import ServeConfig, Server
from hookd.transcript import tee_from_env

__all__ = ["check", "protocol_stdio", "run_service"]

log = structlog.get_logger("hookd.service")


@contextmanager
def protocol_stdio() -> Iterator[tuple[int, int]]:
    """Keep private copies of fds 0 and 1 for the protocol; hide the real ones.

    fd 1 (and ``sys.stdout``) then point at stderr and fd 0 at /dev/null, so a
    hook that prints, or a process it starts, cannot corrupt the stream.
    """
    sys.stdout.flush()
    proto_in, proto_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    try:
        yield proto_in, proto_out
    finally:
        for fd in (proto_in, proto_out):
            with contextlib.suppress(OSError):
                os.set_blocking(fd, True)


def _fail(message: str) -> int:
    print(f"hookd: error: {message}", file=sys.stderr)
    return 1


def load_registry(args: argparse.Namespace) -> Registry:
    """The hooks module and the settings files named on the command line, in one registry."""
    registry = Registry(default_timeout_s=getattr(args, "timeout", 30.0))
    if args.hooks is not None:
        load_hooks(args.hooks, registry, require_hooks=not args.settings)
    if args.settings:
        from hookd.settings import load_settings

        for problem in load_settings(args.settings, registry):
            log.warning("settings.problem", problem=problem)
            print(f"hookd: warning: {problem}", file=sys.stderr)
    if len(registry) == 0 and registry.can_use_tool is None:
        raise HookdError("no hooks to serve")
    return registry


def run_service(args: argparse.Namespace) -> int:
    """Load the hooks, then serve them on stdin/stdout until EOF or a signal."""
    hookd_log.configure(args.log_level, args.log_format)
    try:
        registry = load_registry(args)
    except (HookdError, ValueError) as exc:
        return _fail(str(exc))
    config = ServeConfig(
        max_line_bytes=args.max_line_bytes, max_in_flight=args.max_in_flight, validate=args.validate
    )
    with protocol_stdio() as (fd_in, fd_out):
        trio.run(_serve, registry, config, fd_in, fd_out, args.hooks)
    hookd_log.flush()
    _exit_now(0)
    return 0  # pragma: no cover


def _exit_now(code: int) -> None:
    """Exit without waiting for threads that hooks started and never ended."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


async def _serve(
    registry: Registry, config: ServeConfig, fd_in: int, fd_out: int, hooks: str | None
) -> None:
    server = Server(registry, config)
    stop = trio.Event()
    log.info("service.started", hooks=len(registry), pid=os.getpid())
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_watch_signals, stop)
        receive, send = tee_from_env(
            trio.lowlevel.FdStream(fd_in), trio.lowlevel.FdStream(fd_out), hooks=hooks
        )
        await server.serve(receive, send, stop=stop)
        nursery.cancel_scope.cancel()
    log.info("service.stopped", answered=server.answered)


async def _watch_signals(stop: trio.Event) -> None:
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for signum in signals:
            log.info("service.signal", signal=signal.Signals(signum).name)
            stop.set()


def check(args: argparse.Namespace) -> int:
    """Print the registration table of the hooks and settings, or a clear error."""
    try:
        registry = load_registry(args)
    except (HookdError, ValueError) as exc:
        return _fail(str(exc))
    rows = [("ID", "EVENT", "MATCHER", "TIMEOUT", "ON_FAILURE", "RUNS ON", "CALLBACK")]
    for reg in registry.registrations():
        rows.append(
            (
                reg.callback_id,
                reg.event,
                reg.matcher or "*",
                f"{reg.timeout_s:g}s",
                reg.on_failure,
                reg.runner,
                reg.name,
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    if registry.can_use_tool is not None:
        print(f"can_use_tool: {getattr(registry.can_use_tool, '__qualname__', 'callable')}")
    return 0
