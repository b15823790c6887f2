"""``hookd run`` arguments: its parser, and the flags the CLI command must carry."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any, Final

from hookd.cli.main import add_log_options, positive_seconds

__all__ = ["CommandError", "add_run_parser", "complete_command", "configure_run_parser"]

DEFAULT_COMMAND: Final = ("claude",)
STREAM_JSON: Final = "stream-json"
#: Flags whose value ``hookd run`` needs, added when missing.
REQUIRED_VALUES: Final = (("--output-format", STREAM_JSON), ("--input-format", STREAM_JSON))
PERMISSION_TOOL: Final = "--permission-prompt-tool"

DESCRIPTION = """\
Start a Claude-style coding CLI as a child process, serve HOOKS to it over its
control protocol, and run one prompt (-p) or the stream-json user messages read
from stdin. hookd sends `initialize` with the hooks first, answers every hook
and permission request, keeps the CLI's stdin open until the run is over, and
exits with the CLI's exit code.

stdout carries the CLI's conversation as stream-json lines (nothing when
stdout is a terminal); a readable progress view goes to stderr when it is a
terminal. hookd adds the flags it needs to CLI_COMMAND when they are missing:
--output-format stream-json --input-format stream-json --verbose, and
--permission-prompt-tool stdio when HOOKS defines can_use_tool. With
HOOKD_RECORD=FILE set, the session is recorded as a transcript for
`hookd replay`.
"""

EPILOG = """\
examples:
  hookd run --hooks my_hooks.py -p "fix the failing test" -- claude
  hookd run --hooks my_hooks.py -p "tidy up" -- claude --model claude-sonnet-4-5
  my_producer | hookd run --hooks my_hooks.py -- claude > transcript.jsonl
"""


class CommandError(ValueError):
    """CLI_COMMAND sets a flag to a value ``hookd run`` cannot work with."""


def _flag_value(argv: Sequence[str], flag: str) -> str | None:
    """The value given to ``flag`` (``--flag v`` or ``--flag=v``), or None if absent."""
    for index, arg in enumerate(argv):
        if arg == flag:
            return argv[index + 1] if index + 1 < len(argv) else ""
        if arg.startswith(flag + "="):
            return arg.partition("=")[2]
    return None


def complete_command(argv: Sequence[str], *, can_use_tool: bool) -> list[str]:
    """``argv`` with the flags ``hookd run`` needs added at the end (before a ``--``).

    At the end, so that a launcher (``npx claude``, ``node cli.js``) keeps its
    own arguments. Raises :class:`CommandError` when a required flag has
    another value.
    """
    command = list(argv or DEFAULT_COMMAND)
    end = command.index("--") if "--" in command else len(command)
    rest = command[1:end]
    added: list[str] = []
    for flag, wanted in REQUIRED_VALUES:
        value = _flag_value(rest, flag)
        if value is None:
            added += [flag, wanted]
        elif value != wanted:
            raise CommandError(f"{flag} {value!r}: hookd run needs {flag} {wanted}")
    if "--verbose" not in rest:
        added.append("--verbose")
    if can_use_tool and _flag_value(rest, PERMISSION_TOOL) is None:
        added += [PERMISSION_TOOL, "stdio"]
    return [*command[:end], *added, *command[end:]]


def configure_run_parser(p: argparse.ArgumentParser) -> None:
    """Add the ``hookd run`` arguments to ``p``."""
    p.add_argument(
        "--hooks", required=True, metavar="HOOKS", help="hooks file (path/to/hooks.py) or module"
    )
    p.add_argument(
        "-p",
        "--prompt",
        metavar="PROMPT",
        help="run this one prompt, then end the session; without it, hookd relays "
        "the stream-json user messages it reads on stdin until EOF",
    )
    p.add_argument(
        "--timeout",
        type=positive_seconds,
        default=30.0,
        metavar="SECONDS",
        help="default hook timeout when a matcher sets none (default: 30)",
    )
    p.add_argument(
        "--init-timeout",
        type=positive_seconds,
        default=60.0,
        metavar="SECONDS",
        help="how long to wait for the CLI to answer initialize (default: 60)",
    )
    p.add_argument(
        "--no-validate",
        dest="validate",
        action="store_false",
        help="skip schema validation of hook inputs and outputs",
    )
    p.add_argument(
        "--progress",
        choices=["auto", "always", "never"],
        default="auto",
        help="readable progress lines on stderr; auto = when stderr is a terminal",
    )
    add_log_options(p, default_level="warning")
    p.add_argument(
        "cli_command",
        nargs=argparse.REMAINDER,
        metavar="-- CLI_COMMAND",
        help="the CLI to run and its arguments, after `--` (default: claude)",
    )


def add_run_parser(subparsers: Any) -> None:
    """Register the ``run`` subcommand on an ``add_subparsers()`` object."""
    p = subparsers.add_parser(
        "run",
        help="run the CLI as a child process and serve hooks to it (host mode)",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    configure_run_parser(p)


def build_run_parser() -> argparse.ArgumentParser:
    """A standalone parser for ``python -m hookd.host.main``."""
    p = argparse.ArgumentParser(
        prog="hookd run",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    configure_run_parser(p)
    return p


def cli_command(args: argparse.Namespace) -> list[str]:
    """CLI_COMMAND without the ``--`` that introduces it."""
    command = list(args.cli_command)
    return command[1:] if command[:1] == ["--"] else command
