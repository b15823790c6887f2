"""The registry an HTTP server answers from, swappable while it serves (hot reload)."""

from __future__ import annotations

import time

from hookd.core.registry import Registry

__all__ = ["RegistryHolder"]


class RegistryHolder:
    """Holds the current registry; the server reads :attr:`current` on every request.

    :meth:`swap` installs a new registry (the per-session ``context.state`` of
    the old one carries over); :meth:`failed` records a reload that did not
    load and keeps the current registry serving. With no registry the server
    answers 503.
    """

    def __init__(self, registry: Registry | None, module: str | None = None) -> None:
        self.current = registry
        self.module = module
        self.last_reload: float | None = None  # UNIX time of the last successful swap
        self.reload_error: str | None = None

    def swap(self, registry: Registry | None) -> None:
        """Serve ``registry`` from the next request on."""
        if registry is not None and self.current is not None:
            registry.state = self.current.state
        self.current = registry
        self.last_reload = time.time()
        self.reload_error = None

    def failed(self, error: str) -> None:
        """A reload failed with ``error``: keep serving the current registry."""
        self.reload_error = error
