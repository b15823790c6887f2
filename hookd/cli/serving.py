"""The command line's words for ``hookd serve`` and ``hookd check``, as the typed options the
servers take (:mod:`hookd.serve.config`): no server sees an ``argparse.Namespace``."""

from __future__ import annotations

import argparse

from hookd.serve.config import HttpServeOptions, LoadOptions, ServeConfig, ServeOptions

__all__ = ["http_options", "load_options", "serve_options"]


def load_options(args: argparse.Namespace) -> LoadOptions:
    """What ``hookd serve`` and ``check`` load (HOOKS, --settings, --timeout, --can-use-tool)."""
    return LoadOptions(
        hooks=args.hooks,
        settings=tuple(args.settings or ()),
        timeout_s=getattr(args, "timeout", 30.0),
        can_use_tool=getattr(args, "can_use_tool", None),
        command=getattr(args, "subcommand", None) or "serve",
    )


def serve_options(args: argparse.Namespace) -> ServeOptions:
    """``hookd serve`` on stdio."""
    config = ServeConfig(
        max_line_bytes=args.max_line_bytes,
        max_in_flight=args.max_in_flight,
        max_in_flight_bytes=args.max_in_flight_bytes,
        validate=args.validate,
    )
    return ServeOptions(load_options(args), config, args.log_level, args.log_format)


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
    )
