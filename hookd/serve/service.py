"""``hookd serve`` and ``hookd check``: the sidecar process around the server."""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys

from hookd.core.loader import load_hooks
from hookd.core.registry import Registry
from hookd.errors import HookdError
from hookd.serve.early import Interrupted, answer_early, import_in_background
from hookd.serve.stdio import protocol_stdio
from hookd.serve.user_input import no_user
from hookd.transcript import record_target

__all__ = ["load_registry", "run_service"]

#: Allocations between young-generation collections: per-request dicts are short-lived.
GC_THRESHOLD = 10_000

#: The GIL switch interval while the server's modules import in a thread: the main thread,
#: woken by ``initialize``, gets the GIL back within this rather than Python's 5 ms.
STARTUP_SWITCH_S = 0.0002

#: What the server needs and the ``initialize`` answer does not: imported meanwhile.
HEAVY_MODULES = ("trio", "structlog", "hookd.logs", "hookd.serve.server", "hookd.serve.loop")


def _fail(args: argparse.Namespace, message: str) -> int:
    command = getattr(args, "subcommand", None) or "serve"
    print(f"hookd {command}: error: {message}", file=sys.stderr)
    return 1


def _warn(args: argparse.Namespace, message: str) -> None:
    command = getattr(args, "subcommand", None) or "serve"
    print(f"hookd {command}: warning: {message}", file=sys.stderr)


def load_registry(args: argparse.Namespace) -> Registry:
    """The hooks module and the settings files named on the command line, in one registry."""
    registry = Registry(default_timeout_s=getattr(args, "timeout", 30.0))
    if args.hooks is not None:
        load_hooks(
            args.hooks,
            registry,
            require_hooks=not args.settings,
            can_use_tool=getattr(args, "can_use_tool", None),
        )
    if args.settings:
        from hookd.command.settings_hooks import load_settings

        for problem in load_settings(args.settings, registry):
            _warn(args, problem)
    for problem in registry.doubts():
        _warn(args, problem)
    if len(registry) == 0 and registry.can_use_tool is None:
        raise HookdError("no hooks to serve")
    return registry


def run_service(args: argparse.Namespace) -> int:
    """Load the hooks, then serve them on stdin/stdout until EOF or a signal.

    trio and structlog are imported in a thread while the hooks load and the
    first ``initialize`` is answered (see :mod:`hookd.serve.early`).
    """
    gc.disable()  # imports allocate much and free little: _serve collects again
    try:
        with protocol_stdio() as (fd_in, fd_out):
            no_user()  # input() in a hook fails at once, saying why
            try:
                registry = load_registry(args)
            except (HookdError, ValueError) as exc:
                return _fail(args, str(exc))
            switch = sys.getswitchinterval()
            sys.setswitchinterval(STARTUP_SWITCH_S)  # the importing thread yields the GIL soon
            heavy = import_in_background(*HEAVY_MODULES)  # after the hooks: no GIL contention
            early = b""
            if record_target() is None:  # a recording must see the handshake too
                try:
                    early = answer_early(registry, fd_in, fd_out)
                except Interrupted:
                    _exit_now(0)
            heavy.join()
            sys.setswitchinterval(switch)
            _serve(args, registry, fd_in, fd_out, early)
    finally:
        gc.enable()
    _exit_now(0)
    return 0  # pragma: no cover


def _serve(
    args: argparse.Namespace, registry: Registry, fd_in: int, fd_out: int, early: bytes
) -> None:
    from functools import partial

    import trio

    from hookd import logs as hookd_log
    from hookd.serve.config import ServeConfig
    from hookd.serve.loop import serve_fds

    hookd_log.configure(args.log_level, args.log_format)
    gc.freeze()  # start-up objects (modules, the registry) are never collected: skip them
    gc.set_threshold(GC_THRESHOLD, 20, 20)
    gc.enable()
    config = ServeConfig(
        max_line_bytes=args.max_line_bytes,
        max_in_flight=args.max_in_flight,
        max_in_flight_bytes=args.max_in_flight_bytes,
        validate=args.validate,
    )
    trio.run(partial(serve_fds, registry, config, (fd_in, fd_out), hooks=args.hooks, early=early))


def _exit_now(code: int) -> None:
    """Exit without waiting for threads that hooks started and never ended."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)
