"""Hot reload: when the hooks file or a helper it imports changes, load it again and swap it in.

Watched: the hooks file and the local modules it imported (those whose files
live under its directory, such as ``.claude/policy.py`` beside
``.claude/hooks.py``), through their directories (see
:mod:`hookd.daemon.watcher`). A change is first loaded in a child process
under a deadline (:mod:`hookd.daemon.precheck`); only a version that loads
there is loaded in the daemon, in a worker thread, after the helper modules
are dropped from ``sys.modules`` so that they are imported afresh. A version
that fails either way leaves the previous registry serving; the error goes to
the log and to ``GET /status`` (``reload_error``). A save during a check
replaces the version being checked. The holder carries the per-session
``context.state`` over to the new registry.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Protocol

import structlog
import trio

from hookd.core.registry import Registry
from hookd.daemon.precheck import check_argv, check_in_child
from hookd.daemon.watcher import Watcher, open_watcher
from hookd.errors import HookdError
from hookd.serve.config import HttpServeOptions

__all__ = ["Holder", "Reloader", "local_modules", "reload_task"]

log = structlog.get_logger("hookd.reload")

#: Seconds a new version may take to load in the check process (``--reload-timeout``).
RELOAD_TIMEOUT_S = 10.0

Check = Callable[[], Awaitable[str | None]]


class Holder(Protocol):
    """The server's registry slot (``hookd.serve.http.holder.RegistryHolder``)."""

    def swap(self, registry: Registry | None) -> None: ...

    def failed(self, error: str) -> None: ...


def local_modules(directory: str, baseline: frozenset[str]) -> dict[str, str]:
    """Modules imported since ``baseline`` whose files live under ``directory``: name -> file.

    hookd's own modules and anything under the interpreter's prefixes (a
    virtualenv inside the project) are never counted.
    """
    skip = tuple(os.path.join(p, "") for p in {sys.prefix, sys.base_prefix, sys.exec_prefix})
    inside = os.path.join(directory, "")
    found: dict[str, str] = {}
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if name in baseline or name == "hookd" or name.startswith("hookd.") or not file:
            continue
        real = os.path.realpath(file)
        if real.startswith(inside) and not real.startswith(skip):
            found[name] = real
    return found


class Reloader:
    """Watches one hooks file and its local helpers; reloads them as one."""

    def __init__(
        self,
        holder: Holder,
        module: str,
        load: Callable[[], Registry],
        check: Check,
        *,
        baseline: frozenset[str],
        deadline_s: float = RELOAD_TIMEOUT_S,
    ) -> None:
        self._holder = holder
        self._module = os.path.realpath(module)
        self._directory = os.path.dirname(self._module)
        self._load = load
        self._check = check
        self._baseline = baseline
        self._deadline_s = deadline_s
        self._helpers: dict[str, str] = {}
        self._checking: trio.CancelScope | None = None
        self._loading = trio.Lock()

    def wanted(self) -> set[str]:
        """The files whose change means a reload."""
        return {self._module, *self._helpers.values()}

    async def run(self, *, ready: trio.Event | None = None) -> None:
        """Reload on every change until cancelled."""
        watcher = open_watcher()
        try:
            self._track(watcher)
            helpers = sorted(set(self._helpers.values()) - {self._module})
            log.info("reload.watching", path=self._module, helpers=helpers)
            if ready is not None:
                ready.set()
            async with trio.open_nursery() as nursery:
                while True:
                    await watcher.changed(self.wanted)
                    if self._checking is not None:
                        self._checking.cancel()  # that version is already replaced
                    nursery.start_soon(self._reload, watcher)
        finally:
            watcher.close()

    def _track(self, watcher: Watcher) -> None:
        """Note the helpers loaded now and watch their directories."""
        self._helpers = local_modules(self._directory, self._baseline)
        for directory in {self._directory, *map(os.path.dirname, self._helpers.values())}:
            with contextlib.suppress(OSError):
                watcher.watch(directory)

    async def _reload(self, watcher: Watcher) -> None:
        if not os.path.isfile(self._module):
            return  # removed or being replaced: the next event brings the new file
        with trio.CancelScope() as scope:
            self._checking = scope
            error = await self._check()
        if self._checking is scope:
            self._checking = None
        if scope.cancelled_caught:
            return  # a newer save is being checked instead
        if error is None:
            async with self._loading:
                error = await self._load_here()
        if error is not None:
            self._holder.failed(error)
            log.error("reload.failed", path=self._module, error=error)
            return
        self._track(watcher)

    async def _load_here(self) -> str | None:
        """Load the module in a worker thread, helpers afresh, and swap it in; else the error."""
        for name in self._helpers:
            sys.modules.pop(name, None)
        importlib.invalidate_caches()
        registry: Registry | None = None
        with trio.move_on_after(self._deadline_s):
            try:  # abandoned when cancelled: a thread cannot be stopped, SIGTERM still works
                registry = await trio.to_thread.run_sync(self._load, abandon_on_cancel=True)
            except (HookdError, ValueError) as exc:
                return str(exc)
        if registry is None:
            return (
                f"{self._module}: loading in the daemon did not finish within "
                f"{self._deadline_s:g}s (it did in the check process); restart the daemon "
                "(hookd down) once the module is fixed"
            )
        self._holder.swap(registry)
        log.info("reload.done", path=self._module, hooks=len(registry))
        return None


def reload_task(options: HttpServeOptions) -> Callable[[Holder], Awaitable[None]]:
    """The background task of ``hookd serve HOOKS --http --reload``: watch HOOKS, reload it
    the way the server loaded it (same settings files and default timeout).

    Call it before the server loads HOOKS: the modules imported from then on
    are the candidates for helpers. No bytecode is written for them, so an edit
    within the second of the last load is never mistaken for the cached version.
    """
    from hookd.serve.service import load_registry

    baseline = frozenset(sys.modules)
    sys.dont_write_bytecode = True
    load_options = options.load
    module = str(load_options.hooks)
    argv = check_argv(
        module,
        settings=list(load_options.settings),
        can_use_tool=load_options.can_use_tool,
        timeout_s=load_options.timeout_s,
    )
    deadline_s = options.reload_timeout_s
    check = partial(check_in_child, argv, module, deadline_s)

    async def run(holder: Holder) -> None:
        if not os.path.isfile(module):
            log.warning("reload.unavailable", hooks=module, reason="HOOKS is not a file")
            return
        load = partial(load_registry, load_options)
        await Reloader(holder, module, load, check, baseline=baseline, deadline_s=deadline_s).run()

    return run
