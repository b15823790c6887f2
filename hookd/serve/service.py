"""``hookd serve`` and ``hookd check``: the sidecar process around the server."""

from __future__ import annotations

import contextlib
import gc
import os
import sys

from hookd._version import __version__
from hookd.core.loader import load_hooks
from hookd.core.registry import Registry
from hookd.errors import HookdError
from hookd.serve.config import DecisionLogOptions, LoadOptions, ServeOptions
from hookd.serve.early import Interrupted, answer_early, import_in_background
from hookd.serve.stdio import protocol_stdio
from hookd.serve.user_input import no_user
from hookd.transcript import record_target

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hookd.engine.decisions import DecisionLog

__all__ = ["decision_log", "load_registry", "run_service"]

#: Allocations between young-generation collections: per-request dicts are short-lived.
GC_THRESHOLD = 10_000

#: The GIL switch interval while the server's modules import in a thread: the main thread,
#: woken by ``initialize``, gets the GIL back within this rather than Python's 5 ms.
STARTUP_SWITCH_S = 0.0002

#: What the server needs and the ``initialize`` answer does not: imported meanwhile.
HEAVY_MODULES = ("trio", "structlog", "hookd.logs", "hookd.serve.server", "hookd.serve.loop")


def _fail(options: LoadOptions, message: str) -> int:
    print(f"hookd {options.command}: error: {message}", file=sys.stderr)
    return 1


def _warn(options: LoadOptions, message: str) -> None:
    print(f"hookd {options.command}: warning: {message}", file=sys.stderr)


def load_registry(options: LoadOptions) -> Registry:
    """The hooks module and the settings files named on the command line, in one registry."""
    registry = Registry(default_timeout_s=options.timeout_s, quarantine=options.quarantine)
    if options.hooks is not None:
        load_hooks(
            options.hooks,
            registry,
            require_hooks=not options.settings,
            can_use_tool=options.can_use_tool,
            shadow=options.shadow,
        )
    if options.settings:
        from hookd.command.settings_hooks import load_settings

        registry.shadow_all = options.shadow
        for problem in load_settings(list(options.settings), registry):
            _warn(options, problem)
        registry.version = _with_files(registry.version, options.settings)
    for problem in registry.doubts():
        _warn(options, problem)
    if len(registry) == 0 and registry.can_use_tool is None:
        raise HookdError("no hooks to serve")
    return registry


def _with_files(version: str, files: tuple[str, ...]) -> str:
    """``version`` extended with the content of the settings files served beside the module."""
    import hashlib

    digest = hashlib.sha256(version.encode())
    for name in files:
        with contextlib.suppress(OSError), open(name, "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()[:12]


def decision_log(
    options: DecisionLogOptions | None, module: str | None, otel_endpoint: str | None = None
) -> DecisionLog | None:
    """The decision log of ``options`` and the OpenTelemetry export ``otel_endpoint`` and the
    environment ask for, on one writer thread, started; None with neither."""
    from hookd.engine.otel import open_export

    export = open_export(otel_endpoint, __version__)
    if options is None and export is None:
        return None
    from hookd.engine.decisions import DecisionLog

    store = None
    if options is not None:
        from hookd.decision.store import Store

        store = Store(options.path, max_bytes=options.max_bytes, max_age_s=options.max_age_s)
    decisions = DecisionLog(store, module, export)
    decisions.start()
    return decisions


def run_service(options: ServeOptions) -> int:
    """Load the hooks, then serve them on stdin/stdout until EOF or a signal.

    trio and structlog are imported in a thread while the hooks load and the
    first ``initialize`` is answered (see :mod:`hookd.serve.early`).
    """
    gc.disable()  # imports allocate much and free little: _serve collects again
    try:
        with protocol_stdio() as (fd_in, fd_out):
            no_user()  # input() in a hook fails at once, saying why
            try:
                registry = load_registry(options.load)
            except (HookdError, ValueError) as exc:
                return _fail(options.load, str(exc))
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
            _serve(options, registry, fd_in, fd_out, early)
    finally:
        gc.enable()
    _exit_now(0)
    return 0  # pragma: no cover


def _serve(
    options: ServeOptions, registry: Registry, fd_in: int, fd_out: int, early: bytes
) -> None:
    from functools import partial

    import trio

    from hookd import logs as hookd_log
    from hookd.serve.loop import serve_fds

    hookd_log.configure(options.log_level, options.log_format)
    gc.freeze()  # start-up objects (modules, the registry) are never collected: skip them
    gc.set_threshold(GC_THRESHOLD, 20, 20)
    gc.enable()
    fds = (fd_in, fd_out)
    hooks = options.load.hooks
    decisions = decision_log(options.decisions, hooks, options.otel_endpoint)
    try:
        trio.run(
            partial(
                serve_fds, registry, options.config, fds,
                hooks=hooks, early=early, decisions=decisions,
            )
        )  # fmt: skip
    finally:
        if decisions is not None:
            decisions.close()


def _exit_now(code: int) -> None:
    """Exit without waiting for threads that hooks started and never ended."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)
