"""The registry an HTTP server answers from, swappable while it serves (hot reload)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from hookd import logs as hookd_log
from hookd.core.registry import Registry
from hookd.engine.call import HookCall

__all__ = ["RegistryHolder", "Routes"]

#: Sessions remembered as told; past it, every session is told again.
_TOLD_LIMIT = 10_000
#: The daemon's check of what the hook files route (:mod:`hookd.install.routes`): given the
#: registry serving, one JSON object per hook file that leaves some of its events out:
#: ``{"agent", "events", "file", "fix", "message"}``.
Routes = Callable[[Registry | None], list[dict[str, Any]]]


class RegistryHolder:
    """Holds the current registry; the server reads :attr:`current` on every request.

    :meth:`swap` installs a new registry (the per-session ``context.state`` of
    the old one carries over); :meth:`failed` records a reload that did not
    load and keeps the current registry serving, and :meth:`reload_note` tells each
    session once that its edit is not live. With no registry the server answers 503.
    """

    def __init__(self, registry: Registry | None, module: str | None = None) -> None:
        self.current = registry
        #: Told of each swap, the old registry and the new (the per-hook stats follow it).
        self.on_swap: list[Callable[[Registry | None, Registry | None], None]] = []
        self.module = module
        self.last_reload: float | None = None  # UNIX time of the last successful swap
        self.reload_error: str | None = None
        self._told: set[str] = set()  # sessions shown the current reload error
        #: Set by the daemon: which of the module's events each agent's hook file leaves out.
        self.routes: Routes | None = None
        self._unrouted: list[dict[str, Any]] = []  # as last checked
        self._unrouted_agents: frozenset[object] = frozenset()  # their agents
        self._told_routes: set[tuple[str, str]] = set()  # (agent, session) told of them
        hookd_log.redact_with(self.redact_patterns())

    def redact_patterns(self) -> tuple[str, ...]:
        """The serving module's own redaction patterns (its module-level ``redact`` list):
        the log and the recordings mask what they match."""
        return () if self.current is None else self.current.redact

    def swap(self, registry: Registry | None) -> None:
        """Serve ``registry`` from the next request on."""
        if registry is not None and self.current is not None:
            registry.state = self.current.state
        old, self.current = self.current, registry
        for told in self.on_swap:
            told(old, registry)
        self.last_reload = time.time()
        self.reload_error = None
        self._told.clear()
        hookd_log.redact_with(self.redact_patterns())

    def failed(self, error: str) -> None:
        """A reload failed with ``error``: keep serving the current registry."""
        if error != self.reload_error:
            self._told.clear()
        self.reload_error = error

    def reload_note(self, session_id: object) -> str | None:
        """The line a session is shown once while a failed reload leaves an older version
        serving (its user believes the edit is live); None otherwise."""
        error = self.reload_error
        if error is None or not isinstance(session_id, str) or session_id in self._told:
            return None
        if len(self._told) >= _TOLD_LIMIT:
            self._told.clear()
        self._told.add(session_id)
        return f"hookd: the last save did not load, the version before it still answers: {error}"

    def unrouted(self) -> list[dict[str, Any]]:
        """The module's events that a hook file leaves out, checked now (an install may have
        rewritten a file since): one object per file (see :data:`Routes`)."""
        found = [] if self.routes is None else self.routes(self.current)
        if found != self._unrouted:
            self._told_routes.clear()
        self._unrouted = found
        self._unrouted_agents = frozenset(u.get("agent") for u in found)
        return found

    def route_note(self, agent: str, session_id: object) -> str | None:
        """The lines a session of ``agent`` is shown once while the module has events that
        agent's hook file does not route; None otherwise (at once, while none is left out)."""
        if agent not in self._unrouted_agents or not isinstance(session_id, str):
            return None  # the answer's usual case: nothing to check
        if (agent, session_id) in self._told_routes:
            return None
        lines = [f"hookd: {u['message']}" for u in self.unrouted() if u.get("agent") == agent]
        return "\n".join(lines) or None

    def notes(self, call: HookCall) -> str | None:
        """What ``call``'s session is told once, in this answer (:class:`SessionNotes`): a
        save that did not load, the module's events the agent's hook file leaves out."""
        session = call.session_id
        reload = self.reload_note(session)
        routes = self.route_note(call.agent, session)  # None at once while none is left out
        if routes is None:
            return reload
        assert session is not None
        self.told_routes(call.agent, session)
        return routes if reload is None else f"{reload}\n{routes}"

    def told_routes(self, agent: str, session_id: str) -> None:
        """The session was shown :meth:`route_note`'s lines: not again while they hold."""
        if len(self._told_routes) >= _TOLD_LIMIT:
            self._told_routes.clear()
        self._told_routes.add((agent, session_id))
