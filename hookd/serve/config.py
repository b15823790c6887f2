"""The server's limits and switches (trio-free: the CLI builds it before trio is imported)."""

from __future__ import annotations

import msgspec

from hookd import wire

__all__ = ["ServeConfig"]


class ServeConfig(msgspec.Struct, frozen=True):
    """Server limits and switches (sizes in bytes, times in seconds)."""

    max_line_bytes: int = wire.DEFAULT_MAX_LINE_BYTES
    max_in_flight: int = 4096
    max_in_flight_bytes: int = 256 * 1024 * 1024
    validate: bool = True
    #: On EOF, let the hooks in flight finish (each within its deadline) and send their
    #: answers; False cancels them unanswered (host mode: the CLI that would read them is gone).
    finish_on_eof: bool = True
