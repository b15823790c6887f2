"""The HTTP server's limits and timeouts (no trio: the command line reads its defaults)."""

from __future__ import annotations

import msgspec

__all__ = ["HttpConfig"]


class HttpConfig(msgspec.Struct, frozen=True):
    """Listener address, limits and timeouts (sizes in bytes, times in seconds)."""

    host: str = "127.0.0.1"
    port: int = 0
    max_body_bytes: int = 64 * 1024 * 1024
    max_connections: int = 256  # connections that have shown the token
    max_unauthenticated: int = 128  # connections that have not (yet)
    idle_timeout_s: float = 60.0
    header_timeout_s: float = 10.0
    auth_timeout_s: float = 5.0  # from accept to a first head that shows the token
    body_timeout_s: float = 30.0
    idle_exit_s: float | None = None
