"""``hookd record`` on the command line: its parser, and what it learns from COMMAND."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["add_record_parser", "proxy_header", "record_main", "serve_invocation"]


def serve_invocation(command: Sequence[str]) -> list[str] | None:
    """The arguments after ``serve`` when ``command`` runs ``hookd serve``; else None."""
    if not command:
        return None
    name = Path(command[0]).name
    if name == "hookd":
        rest = list(command[1:])
    elif name.startswith("python") and list(command[1:3]) == ["-m", "hookd"]:
        rest = list(command[3:])
    else:
        return None
    return rest[1:] if rest[:1] == ["serve"] else None


def proxy_header(command: Sequence[str], out: Path) -> dict[str, Any]:
    """The transcript header for a proxied command: its hooks and serve options if known."""
    from hookd.cli.options import serve_parser
    from hookd.transcript.format import recording_header

    description = "recorded by hookd record: " + " ".join(command)
    args = serve_invocation(command)
    if args is None:
        return {"mode": "sidecar", "description": description}
    parsed, _unknown = serve_parser().parse_known_args(args)
    hooks = str(parsed.hooks)
    rest = list(args)
    rest.remove(hooks)
    return recording_header("sidecar", description, hooks, rest, out.parent)


DESCRIPTION = """\
Run COMMAND and record the protocol traffic into a transcript that
`hookd replay` can play back (e.g. in CI).

  --via proxy   COMMAND speaks the protocol on stdio (`hookd serve HOOKS`): the
                recorder sits between its own stdio and COMMAND's and tees both
                directions. Configure the CLI to spawn
                `hookd record --out FILE -- hookd serve HOOKS`.
  --via env     COMMAND is a CLI that spawns `hookd serve` itself: the recorder
                sets HOOKD_RECORD=FILE and hookd serve records its own session
                ({pid} in FILE becomes each server's process id).
  --via daemon  COMMAND is `claude` in a project where `hookd install` wrote the
                settings: the module's daemon (started if needed) records the
                session COMMAND runs, from its SessionStart to its end, and no
                other session, into an http transcript; the file is closed when
                COMMAND exits.
  --via auto    proxy for a `hookd serve` command, env for `hookd serve --http`
                (which records its HTTP exchanges), daemon when the settings read
                from here hold entries `hookd install` wrote (for one module:
                several are an error), env otherwise (default).

The exit status is COMMAND's.
"""

EPILOG = """\
examples:
  hookd record --out session.jsonl -- hookd serve hooks.py
  hookd record --out session.jsonl -- my-cli --hooks-sidecar "hookd serve hooks.py"
  hookd record --out session.jsonl -- claude      # after hookd install
  hookd replay session.jsonl
"""


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True, metavar="FILE", help="transcript to write")
    p.add_argument(
        "--via",
        choices=["auto", "proxy", "env", "daemon"],
        default="auto",
        help="how to record (see above; default: auto)",
    )
    p.add_argument("command", nargs=argparse.REMAINDER, metavar="-- COMMAND ...")


def add_record_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``record`` subcommand to a ``hookd`` subparsers object."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "record",
        help="run a command and record its protocol traffic into a transcript",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_arguments(p)
    return p


def record_main(args: argparse.Namespace) -> int:
    """Run ``hookd record`` with parsed arguments; COMMAND's exit status."""
    command = list(args.command)
    if command[:1] == ["--"]:
        command = command[1:]
    if not command:
        print(
            "hookd record: error: no COMMAND (hookd record --out FILE -- COMMAND)", file=sys.stderr
        )
        return 2
    folder = Path(args.out).parent
    if not (folder.is_dir() and os.access(folder, os.W_OK)):
        print(
            f"hookd record: error: cannot write {args.out}: {folder} is not a writable folder",
            file=sys.stderr,
        )
        return 2
    from hookd.nofollow import LinkError, check_target

    try:  # a link at --out is refused before COMMAND runs (every mode: proxy, env, daemon)
        check_target(Path(args.out), private_folder=False)
    except LinkError as exc:
        print(f"hookd record: error: {exc}", file=sys.stderr)
        return 2
    via = args.via
    if via in ("auto", "daemon") and serve_invocation(command) is None:
        return _record_daemon(command, args.out, required=via == "daemon")
    from hookd.host.recorder import record_env, record_proxy

    if via == "auto":
        serve = serve_invocation(command)
        over_http = serve is not None and any(a.split("=")[0] == "--http" for a in serve)
        via = "proxy" if serve is not None and not over_http else "env"
    if via == "env":
        return record_env(command, args.out)
    return record_proxy(command, args.out, proxy_header(command, Path(args.out)))


def _record_daemon(command: list[str], out: str, *, required: bool) -> int:
    """Record through the installed daemon; ``--via env`` when none is installed (auto)."""
    from hookd.install.recording import installed_here, record_daemon

    found = installed_here(Path.cwd())
    if len(found) == 1:
        return record_daemon(command, out, found[0])
    if found:
        names = ", ".join(f.hooks for f in found)
        print(
            f"hookd record: error: several hookd modules are installed here ({names}); "
            "record one session at a time from a project that installs one",
            file=sys.stderr,
        )
        return 2
    if required:
        print("hookd record: error: --via daemon: no `hookd install` entries in the settings "
              "read from here", file=sys.stderr)  # fmt: skip
        return 2
    from hookd.host.recorder import record_env

    return record_env(command, out)
