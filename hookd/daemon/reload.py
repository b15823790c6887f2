"""Hot reload: when the hooks file changes, load it again and swap the registry in.

The file's directory is watched (editors often save by renaming a new file over
the old one). A module that fails to load leaves the previous registry serving;
the error goes to the log and to ``GET /status`` (``reload_error``). The
holder carries the per-session ``context.state`` over to the new registry.
"""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Protocol

import structlog
import trio

from hookd.core.registry import Registry
from hookd.errors import HookdError

__all__ = ["Holder", "reload_task", "watch_module"]

log = structlog.get_logger("hookd.reload")

#: Milliseconds of quiet after a change before reloading (an editor's save is several events).
DEBOUNCE_MS = 50
STEP_MS = 20


class Holder(Protocol):
    """The server's registry slot (``hookd.serve.http.holder.RegistryHolder``)."""

    def swap(self, registry: Registry | None) -> None: ...

    def failed(self, error: str) -> None: ...


def _same_file(module: Path) -> Callable[[object, str], bool]:
    def wanted(_change: object, path: str) -> bool:
        return Path(path) == module

    return wanted


async def watch_module(
    holder: Holder,
    module: Path,
    load: Callable[[], Registry],
    *,
    ready: trio.Event | None = None,
) -> None:
    """Reload ``module`` through ``load`` whenever it changes, until cancelled."""
    from watchfiles import awatch

    module = module.resolve()
    watcher = awatch(
        module.parent,
        watch_filter=_same_file(module),
        debounce=DEBOUNCE_MS,
        step=STEP_MS,
        recursive=False,
    )
    log.info("reload.watching", path=str(module))
    if ready is not None:
        ready.set()
    async for _changes in watcher:
        await reload_once(holder, module, load)


async def reload_once(holder: Holder, module: Path, load: Callable[[], Registry]) -> bool:
    """Load the module again in a worker thread; swap it in, or record why not."""
    if not module.is_file():
        return False  # removed or being replaced: the next event brings the new file
    try:
        registry = await trio.to_thread.run_sync(load)
    except (HookdError, ValueError) as exc:
        holder.failed(str(exc))
        log.error("reload.failed", path=str(module), error=str(exc))
        return False
    holder.swap(registry)
    log.info("reload.done", path=str(module), hooks=len(registry))
    return True


def reload_task(args: argparse.Namespace) -> Callable[[Holder], Awaitable[None]]:
    """The background task of ``hookd serve HOOKS --http --reload``: watch HOOKS, reload it
    the way the server loaded it (same settings files and default timeout)."""
    from hookd.serve.service import load_registry

    module = Path(args.hooks)

    async def run(holder: Holder) -> None:
        await watch_module(holder, module, partial(load_registry, args))

    return run
