"""The registry an HTTP server answers from, swappable while it serves (hot reload)."""

from __future__ import annotations

import time
from collections.abc import Callable

from hookd import logs as hookd_log
from hookd.core.registry import Registry

__all__ = ["RegistryHolder"]

#: Sessions remembered as told; past it, every session is told again.
_TOLD_LIMIT = 10_000


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
