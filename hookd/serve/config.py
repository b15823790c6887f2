"""The server's limits and switches (trio-free: the CLI builds it before trio is imported)."""

from __future__ import annotations

from typing import Literal

import msgspec

from hookd import wire
from hookd.core.health import Quarantine
from hookd.decision import DEFAULT_MAX_AGE_DAYS, DEFAULT_MAX_BYTES

__all__ = [
    "DecisionLogOptions",
    "HttpServeOptions",
    "LoadOptions",
    "LogFormat",
    "ServeConfig",
    "ServeOptions",
]

LogFormat = Literal["auto", "json", "console"]


class ServeConfig(msgspec.Struct, frozen=True):
    """Server limits and switches (sizes in bytes, times in seconds)."""

    max_line_bytes: int = wire.DEFAULT_MAX_LINE_BYTES
    max_in_flight: int = 4096
    max_in_flight_bytes: int = 256 * 1024 * 1024
    validate: bool = True
    #: On EOF, let the hooks in flight finish (each within its deadline) and send their
    #: answers; False cancels them unanswered (host mode: the CLI that would read them is gone).
    finish_on_eof: bool = True


class LoadOptions(msgspec.Struct, frozen=True):
    """What to load: the hooks module and settings files, and how (``hookd serve``/``check``)."""

    hooks: str | None
    settings: tuple[str, ...] = ()
    timeout_s: float = 30.0
    can_use_tool: str | None = None
    command: str = "serve"  # names the command in warnings: ``hookd check: warning: ...``
    shadow: bool = False  # every hook of the module is a shadow hook
    quarantine: Quarantine = Quarantine()  # when a failing hook is quarantined


class DecisionLogOptions(msgspec.Struct, frozen=True):
    """Where the decision log is kept, and its bounds."""

    path: str
    max_bytes: int = DEFAULT_MAX_BYTES
    max_age_s: float = DEFAULT_MAX_AGE_DAYS * 86400


class ServeOptions(msgspec.Struct, frozen=True):
    """``hookd serve`` on stdio: what to load, the log, the server's limits."""

    load: LoadOptions
    config: ServeConfig = ServeConfig()
    log_level: str = "info"
    log_format: LogFormat = "auto"
    decisions: DecisionLogOptions | None = None
    otel_endpoint: str | None = None  # OTLP/HTTP base URL; the OTEL_* environment otherwise


class HttpServeOptions(msgspec.Struct, frozen=True):
    """``hookd serve --http``: what to load, where to listen, the token, the log, reloads.

    ``address`` is the ``[HOST:]PORT`` text as given; the server's limits are
    filled into an :class:`~hookd.serve.http.config.HttpConfig` once it is parsed.
    """

    load: LoadOptions
    address: str
    token_file: str | None = None
    proof_key_file: str | None = None
    ready_file: str | None = None
    log_max_bytes: int | None = None
    max_body_bytes: int = 64 * 1024 * 1024
    max_connections: int = 256
    max_unauthenticated: int = 128
    header_timeout_s: float = 10.0
    auth_timeout_s: float = 5.0
    idle_exit_s: float | None = None
    validate: bool = True
    reload: bool = False
    reload_timeout_s: float = 10.0
    log_level: str = "info"
    log_format: LogFormat = "auto"
    decisions: DecisionLogOptions | None = None
    otel_endpoint: str | None = None  # OTLP/HTTP base URL; the OTEL_* environment otherwise
