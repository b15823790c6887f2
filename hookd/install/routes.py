"""Which of the served module's events each hook file of its install leaves out.

Claude Code's local and user settings route every event the daemon serves, so a hook a
later save adds is called. An agent CLI's hook file (and a project-scope Claude Code file,
and Claude Code's few events routed only on demand, such as FileChanged) routes only the
events the module had at install: an event added by a later save is called by no one there,
and nothing said so. The daemon knows: at its start, after each reload, and whenever
``GET /status`` asks (an install again may have rewritten a file since), it compares the
module's events with the events each file of the install record routes for the module.
Each file that leaves some out is one object, which ``hookd status`` prints and each session
of that agent is shown once (:class:`hookd.serve.http.holder.RegistryHolder`).
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import structlog

from hookd.agents import dialect
from hookd.core.registry import Registry
from hookd.daemon.paths import DaemonPaths, PathError, daemon_paths
from hookd.errors import HookdError
from hookd.install.installed import HookFile, file_entries, hook_files
from hookd.install.plugins import plugin_settings
from hookd.serve.config import HttpServeOptions
from hookd.serve.http.holder import RegistryHolder

__all__ = ["RouteCheck", "module_events", "routes_task", "unrouted"]

log = structlog.get_logger("hookd.routes")


def module_events(registry: Registry) -> list[str]:
    """The events the module has hooks for (PermissionRequest too when it answers
    ``can_use_tool``), in Claude Code's names."""
    found = {reg.event for reg in registry.registrations()}
    if registry.can_use_tool is not None:
        found.add("PermissionRequest")
    return sorted(found)


def _routed(file: HookFile, paths: DaemonPaths) -> set[str] | None:
    """The Claude events the file routes to the module; None when it has no entry of the
    module's (not installed there now) or cannot be read."""
    if file.plugin:
        return _plugin_routed(file, paths)
    try:
        _, found = file_entries(file, file.keys(paths))
    except ValueError:
        return None
    if not found:
        return None
    if file.agent == "claude":
        return {e.agent_event for e in found}
    names = dialect(file.agent)
    return {ours for e in found if (ours := names.claude_event(e.agent_event)) is not None}


def _plugin_routed(file: HookFile, paths: DaemonPaths) -> set[str] | None:
    """The Claude events the module's plugin file forwards (its settings line's routes)."""
    try:
        found = plugin_settings(file.path.read_bytes())
    except OSError:
        return None
    routes = found.get("routes") if found is not None and found.get("key") == paths.key else None
    if not isinstance(routes, dict):
        return None
    names = dialect(file.agent)
    return {ours for e in routes if (ours := names.claude_event(e)) is not None}


def _named(agent: str, event: str) -> str:
    theirs = None if agent == "claude" else dialect(agent).agent_event(event)
    return event if theirs in (None, event) else f"{event} ({theirs})"


def unrouted(paths: DaemonPaths, registry: Registry | None) -> list[dict[str, Any]]:
    """One object per hook file that routes some of the module's events it could, not all."""
    if registry is None:
        return []
    events = module_events(registry)
    out = []
    for file in hook_files(paths.module):
        routed = _routed(file, paths)
        if routed is None:
            continue
        sent = [e for e in events if file.agent == "claude" or dialect(file.agent).agent_event(e)]
        missing = [e for e in sent if e not in routed]
        if not missing:
            continue
        names = ", ".join(_named(file.agent, e) for e in missing)
        verb = "is" if len(missing) == 1 else "are"
        fix = file.install(paths.module)
        message = (
            f"{file.agent}: {names} {verb} in the module but not in {file.shown}: run `{fix}` again"
        )
        out.append(
            {"agent": file.agent, "events": missing, "file": str(file.path), "fix": fix,
             "message": message}
        )  # fmt: skip
    return out


def _stamp(path: Path) -> object:
    """What changes when a file is rewritten (in place or by a rename over it)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size, info.st_ino)


class RouteCheck:
    """:func:`unrouted` for one module, worked out again only when the registry, the install
    record or one of the files it names changed (otherwise a few ``stat`` calls: ``GET
    /status`` asks at every prompt, through ``hookd call``)."""

    def __init__(self, paths: DaemonPaths) -> None:
        self.paths = paths
        self._registry: Registry | None = None  # held: its id is never another's meanwhile
        self._record: object = None
        self._files: list[Path] = []
        self._stamps: list[object] | None = None
        self._found: list[dict[str, Any]] = []

    def _changed(self, registry: Registry | None) -> bool:
        record = _stamp(self.paths.record)
        if record != self._record or self._stamps is None:
            self._record = record
            self._files = [f.path for f in hook_files(self.paths.module)]
        stamps = [record, *map(_stamp, self._files)]
        changed = registry is not self._registry or stamps != self._stamps
        self._registry, self._stamps = registry, stamps
        return changed

    def __call__(self, registry: Registry | None) -> list[dict[str, Any]]:
        try:
            if self._changed(registry):
                self._found = unrouted(self.paths, registry)
        except (HookdError, OSError, ValueError) as exc:  # never in the way of an answer
            self._stamps = None
            log.warning("routes.unreadable", error=str(exc))
            return []
        return list(self._found)


def routes_task(options: HttpServeOptions) -> Callable[[RegistryHolder], Awaitable[None]]:
    """A task of ``hookd serve HOOKS --http`` that gives the registry holder the route check
    of HOOKS' install (nothing when HOOKS is not a file), and runs it at start and at each
    reload."""
    module = options.load.hooks

    async def run(holder: RegistryHolder) -> None:
        if module is None or not os.path.isfile(module):
            return
        try:
            paths = daemon_paths(Path(module).resolve(), create=False)
        except PathError:
            return

        def swapped(_old: Registry | None, _new: Registry | None) -> None:
            holder.unrouted()  # a reload may bring or drop an event

        holder.routes = RouteCheck(paths)
        holder.on_swap.append(swapped)
        holder.unrouted()

    return run
