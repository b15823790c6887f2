"""Options shared by several commands; their defaults come from the config types."""

from __future__ import annotations

import argparse
from typing import Any, Final

from hookd.bounds import BYTES, COUNT, DAYS, MAX_IDLE_SECONDS, SECONDS, Bound, option
from hookd.cli.daemon import otel_option
from hookd.core.health import (
    AFTER,
    AFTER_ENV,
    COOLDOWN_ENV,
    LEASH_ENV,
    QUARANTINE_AFTER,
    QUARANTINE_COOLDOWN_S,
    QUARANTINE_LEASH_S,
    QUARANTINE_WINDOW_S,
    WINDOW_ENV,
)
from hookd.core.registry import DEFAULT_TIMEOUT_S
from hookd.serve.config import ServeConfig
from hookd.serve.http.config import HttpConfig

__all__ = [
    "SERVE_DESCRIPTION",
    "STATE_STORE",
    "add_can_use_tool_option",
    "add_decision_options",
    "add_http_options",
    "add_log_options",
    "add_quarantine_options",
    "add_serve_options",
    "byte_size",
    "configure_serve_parser",
    "idle_seconds",
    "positive_int",
    "positive_seconds",
    "serve_parser",
]

_DEFAULTS: Final = ServeConfig()
_HTTP: Final = HttpConfig()

SERVE_DESCRIPTION: Final = (
    "Serve HOOKS over stdin/stdout until stdin closes or SIGTERM/SIGINT. "
    "stdout carries only protocol lines; logs go to stderr. With --http, serve them to "
    "Claude Code's http hooks on a loopback port instead, until SIGTERM/SIGINT or --idle-exit."
)


#: An argparse type: a timeout in seconds, above 0 and at most a day (nan, inf refused).
positive_seconds: Final = option(SECONDS)
#: An argparse type: a count of at least 1 (requests, connections).
positive_int: Final = option(COUNT)
#: An argparse type: a size in bytes, at least 1 and at most 64 GiB.
byte_size: Final = option(BYTES)
#: An argparse type: ``--idle-exit`` of ``hookd serve``, above 0 and at most a year.
idle_seconds: Final = option(Bound(0, MAX_IDLE_SECONDS, unit="seconds", above=True))


def add_serve_options(p: argparse.ArgumentParser) -> None:
    """The server limits and switches of ``hookd serve``."""
    p.add_argument(
        "--timeout",
        type=positive_seconds,
        default=DEFAULT_TIMEOUT_S,
        metavar="SECONDS",
        help=f"timeout of Python callbacks that set none (default: {DEFAULT_TIMEOUT_S:g}); "
        "command hooks take their settings entry's timeout, else 600 as in Claude Code",
    )
    p.add_argument(
        "--max-line-bytes",
        type=byte_size,
        default=_DEFAULTS.max_line_bytes,
        metavar="N",
        help="longest accepted input line; longer ones are discarded and "
        "their request answered with an error (default: 64 MiB)",
    )
    p.add_argument(
        "--max-in-flight",
        type=positive_int,
        default=_DEFAULTS.max_in_flight,
        metavar="N",
        help="requests running at once; the excess is answered with an "
        f"'overloaded' error (default: {_DEFAULTS.max_in_flight})",
    )
    p.add_argument(
        "--max-in-flight-bytes",
        type=byte_size,
        default=_DEFAULTS.max_in_flight_bytes,
        metavar="N",
        help="total size of the request lines running at once; the excess is answered "
        "with an 'overloaded' error (default: 256 MiB)",
    )
    p.add_argument(
        "--no-validate",
        dest="validate",
        action="store_false",
        help="skip schema validation of hook inputs and outputs",
    )


def add_http_options(p: argparse.ArgumentParser) -> None:
    """The HTTP transport's options of ``hookd serve`` (protocol/SPEC.md section 14)."""
    http = p.add_argument_group(
        "HTTP transport",
        'serve Claude Code\'s "type": "http" hooks instead of stdin/stdout: '
        "POST /hook/<EventName> with the hook input, GET /status",
    )
    http.add_argument(
        "--http",
        metavar="[HOST:]PORT",
        help="listen on HOST:PORT (HOST defaults to 127.0.0.1; PORT 0 picks a free port)",
    )
    http.add_argument(
        "--token-file",
        metavar="FILE",
        help="file holding the bearer token every request must carry (default: $HOOKD_TOKEN)",
    )
    http.add_argument(
        "--proof-key-file",
        metavar="FILE",
        help="answer a request's X-Hookd-Challenge with X-Hookd-Proof, an HMAC-SHA256 under "
        "this file's key (hookd up does this to tell its daemon from another program)",
    )
    http.add_argument(
        "--ready-file",
        metavar="FILE",
        help="once listening, write {pid, host, port, module, started} as JSON here (mode 0600)",
    )
    http.add_argument(
        "--idle-exit",
        type=idle_seconds,
        metavar="SECONDS",
        help="exit 0 after SECONDS without hook requests (default: never)",
    )
    _add_http_limits(http)


def _add_http_limits(http: Any) -> None:
    """Body size, connection count and header time of the HTTP transport."""
    http.add_argument(
        "--reload",
        action="store_true",
        help="load HOOKS again when its file, or a module it imports from its own directory, "
        "changes; a version that fails to load, or does not load within --reload-timeout, "
        "leaves the previous one serving (the error shows in GET /status)",
    )
    http.add_argument(
        "--reload-timeout",
        type=positive_seconds,
        default=10.0,
        metavar="SECONDS",
        help="how long a changed HOOKS may take to load in a check process before it is "
        "refused (default: 10)",
    )
    http.add_argument(
        "--max-body-bytes",
        type=byte_size,
        default=_HTTP.max_body_bytes,
        metavar="N",
        help="largest request body; a larger one is answered 413 (default: 64 MiB)",
    )
    http.add_argument(
        "--max-connections",
        type=positive_int,
        default=_HTTP.max_connections,
        metavar="N",
        help="connections that have shown the token served at once; past it the longest-idle "
        f"one is closed, or the new one answered 503 (default: {_HTTP.max_connections})",
    )
    http.add_argument(
        "--max-unauthenticated",
        type=positive_int,
        default=_HTTP.max_unauthenticated,
        metavar="N",
        help="connections open at once that have not shown the token yet; past it the oldest "
        f"of them is closed (default: {_HTTP.max_unauthenticated})",
    )
    http.add_argument(
        "--log-max-bytes",
        type=byte_size,
        metavar="N",
        help="when stderr is a file, move it to FILE.1 and start a new one once it passes "
        "N bytes (checked each second; hookd up sets 10 MiB)",
    )
    http.add_argument(
        "--header-timeout",
        type=positive_seconds,
        default=_HTTP.header_timeout_s,
        metavar="SECONDS",
        help="time a client has to send a request head once it started "
        f"(default: {_HTTP.header_timeout_s:g})",
    )
    http.add_argument(
        "--auth-timeout",
        type=positive_seconds,
        default=_HTTP.auth_timeout_s,
        metavar="SECONDS",
        help="time a new connection has to send a whole first request head with the token "
        f"(default: {_HTTP.auth_timeout_s:g})",
    )


#: ``--decision-log`` without FILE: the module's own store, the one ``hookd log HOOKS`` reads.
STATE_STORE: Final = "<state>"


def add_decision_options(p: argparse.ArgumentParser) -> None:
    """``--decision-log [FILE]``, its bounds, and ``--shadow``."""
    group = p.add_argument_group(
        "decision log",
        "one record per answer (time, agent, session, event, tool, the deciding hook, its "
        "decision and reason, the input), written off the request path to SQLite; read "
        "with `hookd log`. The daemon `hookd up` starts keeps one; `hookd serve` only when asked",
    )
    group.add_argument(
        "--decision-log",
        nargs="?",
        const=STATE_STORE,
        metavar="FILE",
        help="keep the decision log in FILE (default without FILE: the module's state "
        "directory, where `hookd log HOOKS` reads it)",
    )
    group.add_argument(
        "--decision-log-max-bytes",
        type=byte_size,
        metavar="N",
        help="size bound, oldest records dropped first "
        "(default: $HOOKD_DECISION_LOG_MAX_BYTES, else 50 MiB)",
    )
    group.add_argument(
        "--decision-log-max-days",
        type=option(DAYS),
        metavar="DAYS",
        help="age bound (default: $HOOKD_DECISION_LOG_MAX_DAYS, else 30)",
    )
    otel_option(group)
    group.add_argument(
        "--shadow",
        action="store_true",
        help="every hook of HOOKS runs in shadow: logged with its would-be decision, "
        "never part of the answer (failures never block)",
    )


def whole_number(text: str) -> int:
    """An argparse type: an integer of at least 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more: {text}")
    return value


def add_quarantine_options(p: argparse.ArgumentParser) -> None:
    """When a hook that keeps timing out is quarantined, for how long, on what leash."""
    group = p.add_argument_group(
        "hook health",
        "a hook that keeps timing out in a session is quarantined there: until a cool-down "
        "ends, each of its calls in that session still runs it, with --quarantine-leash "
        "seconds to answer instead of its full timeout (no answer in time: its failure "
        "policy). Only timeouts count, per agent session: an exception or an invalid output "
        "never does, and no session's calls change another's. After the cool-down the next "
        "call gets its full timeout (an answer clears it, a timeout doubles the cool-down, "
        "up to 10 min). A reload starts every hook clean",
    )
    group.add_argument(
        "--quarantine-after",
        type=option(AFTER),
        metavar="N",
        help=f"timeouts within --quarantine-window that quarantine a hook in a session; "
        f"0 never does (default: ${AFTER_ENV}, else {QUARANTINE_AFTER})",
    )
    group.add_argument(
        "--quarantine-window",
        type=option(SECONDS),
        metavar="SECONDS",
        help=f"how far back timeouts count (default: ${WINDOW_ENV}, else {QUARANTINE_WINDOW_S:g})",
    )
    group.add_argument(
        "--quarantine-cooldown",
        type=option(SECONDS),
        metavar="SECONDS",
        help=f"how long the first quarantine lasts (default: ${COOLDOWN_ENV}, "
        f"else {QUARANTINE_COOLDOWN_S:g})",
    )
    group.add_argument(
        "--quarantine-leash",
        type=option(SECONDS),
        metavar="SECONDS",
        help=f"how long a quarantined hook has to answer (default: ${LEASH_ENV}, "
        f"else {QUARANTINE_LEASH_S:g})",
    )


def add_can_use_tool_option(p: argparse.ArgumentParser) -> None:
    """``--can-use-tool NAME``: which module-level callable answers permission requests."""
    p.add_argument(
        "--can-use-tool",
        metavar="NAME",
        default=None,
        help="the module-level callable that answers permission requests "
        "(default: can_use_tool, else the can_use_tool of a module-level ClaudeAgentOptions)",
    )


def add_log_options(p: argparse.ArgumentParser, default_level: str = "info") -> None:
    """``--log-level`` and ``--log-format``, shared by the commands that log."""
    p.add_argument(
        "--log-level",
        default=default_level,
        choices=["debug", "info", "warning", "error"],
        help=f"stderr log level (default: {default_level})",
    )
    p.add_argument(
        "--log-format",
        default="auto",
        choices=["auto", "json", "console"],
        help="stderr log format; auto = console on a terminal, JSON lines "
        "otherwise (default: auto)",
    )


def add_hooks_arguments(p: argparse.ArgumentParser, settings_help: str) -> None:
    """HOOKS and ``--settings FILE``: where the hooks come from (serve and check)."""
    p.add_argument(
        "hooks",
        metavar="HOOKS",
        nargs="?",
        default=None,
        help="hooks file or module (optional when --settings is given)",
    )
    p.add_argument("--settings", metavar="FILE", action="append", default=[], help=settings_help)


def configure_serve_parser(p: argparse.ArgumentParser) -> None:
    """The arguments of ``hookd serve``."""
    add_hooks_arguments(
        p, "also serve the command hooks of this Claude Code settings file (repeatable)"
    )
    add_can_use_tool_option(p)
    add_serve_options(p)
    add_http_options(p)
    add_decision_options(p)
    add_quarantine_options(p)
    add_log_options(p)


def serve_parser() -> argparse.ArgumentParser:
    """A standalone parser of ``hookd serve``'s arguments."""
    p = argparse.ArgumentParser(prog="hookd serve", description=SERVE_DESCRIPTION)
    configure_serve_parser(p)
    return p
