"""The command line's words for ``hookd serve`` and ``hookd check``, as the typed options the
servers take (:mod:`hookd.serve.config`): no server sees an ``argparse.Namespace``."""

from __future__ import annotations

import argparse
import os

from hookd.bounds import BYTES, DAYS, Bound, env_number
from hookd.core.health import Quarantine
from hookd.decision import (
    DEFAULT_MAX_AGE_DAYS,
    DEFAULT_MAX_BYTES,
    MAX_AGE_ENV,
    MAX_BYTES_ENV,
    STORE_NAME,
)
from hookd.errors import HookdError
from hookd.serve.config import (
    DecisionLogOptions,
    HttpServeOptions,
    LoadOptions,
    ServeConfig,
    ServeOptions,
)

__all__ = [
    "decision_options",
    "http_options",
    "load_options",
    "quarantine_options",
    "serve_options",
]


def load_options(args: argparse.Namespace) -> LoadOptions:
    """What ``hookd serve`` and ``check`` load (HOOKS, --settings, --timeout, --can-use-tool)."""
    return LoadOptions(
        hooks=args.hooks,
        settings=tuple(args.settings or ()),
        timeout_s=getattr(args, "timeout", 30.0),
        can_use_tool=getattr(args, "can_use_tool", None),
        command=getattr(args, "subcommand", None) or "serve",
        shadow=getattr(args, "shadow", False),
        quarantine=quarantine_options(args),
    )


def quarantine_options(args: argparse.Namespace) -> Quarantine:
    """``--quarantine-after``, ``-window``, ``-cooldown``, ``-leash``; each one
    not given from its ``$HOOKD_QUARANTINE_*`` variable, else the default."""
    try:
        found = Quarantine.from_env()
    except ValueError as exc:
        raise HookdError(str(exc)) from None
    after = getattr(args, "quarantine_after", None)
    window_s = getattr(args, "quarantine_window", None)
    cooldown_s = getattr(args, "quarantine_cooldown", None)
    leash_s = getattr(args, "quarantine_leash", None)
    return Quarantine(
        found.after if after is None else after,
        found.window_s if window_s is None else window_s,
        found.cooldown_s if cooldown_s is None else cooldown_s,
        max(found.max_cooldown_s, cooldown_s or 0.0),
        found.leash_s if leash_s is None else leash_s,
    )


def _bound(given: float | None, env: str, bound: Bound, default: float) -> float:
    """The option's value, else ``$env``'s within ``bound`` (one line naming it), else
    ``default``."""
    return given if given is not None else env_number(env, bound, default)


def decision_options(args: argparse.Namespace) -> DecisionLogOptions | None:
    """``--decision-log [FILE]`` and its bounds; None without ``--decision-log``.

    Without FILE the store is the module's own, in its state directory (0700).
    """
    from hookd.cli.options import STATE_STORE

    where = getattr(args, "decision_log", None)
    if where is None:
        return None
    if where == STATE_STORE:
        from hookd.daemon.paths import daemon_paths, module_path

        if args.hooks is None:
            raise HookdError("--decision-log without FILE needs HOOKS (a hooks file)")
        where = str(daemon_paths(module_path(args.hooks)).state_dir / STORE_NAME)
    max_bytes = _bound(args.decision_log_max_bytes, MAX_BYTES_ENV, BYTES, DEFAULT_MAX_BYTES)
    max_days = _bound(args.decision_log_max_days, MAX_AGE_ENV, DAYS, DEFAULT_MAX_AGE_DAYS)
    return DecisionLogOptions(os.path.abspath(where), int(max_bytes), max_days * 86400)


def serve_options(args: argparse.Namespace) -> ServeOptions:
    """``hookd serve`` on stdio."""
    config = ServeConfig(
        max_line_bytes=args.max_line_bytes,
        max_in_flight=args.max_in_flight,
        max_in_flight_bytes=args.max_in_flight_bytes,
        validate=args.validate,
    )
    return ServeOptions(
        load_options(args),
        config,
        args.log_level,
        args.log_format,
        decision_options(args),
        getattr(args, "otel_endpoint", None),
    )


def http_options(args: argparse.Namespace) -> HttpServeOptions:
    """``hookd serve --http``."""
    return HttpServeOptions(
        load=load_options(args),
        address=args.http,
        token_file=args.token_file,
        proof_key_file=getattr(args, "proof_key_file", None),
        ready_file=args.ready_file,
        log_max_bytes=getattr(args, "log_max_bytes", None),
        max_body_bytes=args.max_body_bytes,
        max_connections=args.max_connections,
        max_unauthenticated=args.max_unauthenticated,
        header_timeout_s=args.header_timeout,
        auth_timeout_s=args.auth_timeout,
        idle_exit_s=args.idle_exit,
        validate=args.validate,
        reload=args.reload,
        reload_timeout_s=args.reload_timeout,
        log_level=args.log_level,
        log_format=args.log_format,
        decisions=decision_options(args),
        otel_endpoint=getattr(args, "otel_endpoint", None),
    )
