"""Parsers of ``serve``, ``check``, ``demo``, ``schema`` and ``validate``.

Only the parser of the command that runs is built in full (its options'
defaults import the hook core); the others are listed by name and summary.
"""

from __future__ import annotations

import argparse
import os
import sys

TYPE_CHECKING = False  # without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    #: Adds a command's arguments to its parser.
    Builder = Callable[[argparse.ArgumentParser], None]

__all__ = ["LOCAL_COMMANDS", "Parser", "add_command"]


class Parser(argparse.ArgumentParser):
    """An argument parser whose help formatter knows its width without importing shutil."""

    def _get_formatter(self) -> argparse.HelpFormatter:
        make: Any = self.formatter_class  # every HelpFormatter takes a width
        formatter: argparse.HelpFormatter = make(prog=self.prog, width=_columns() - 2)
        return formatter


def _columns() -> int:
    """The terminal's width as ``shutil.get_terminal_size().columns`` gives it."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        columns = 0
    return columns or 80


def add_command(
    sub: argparse._SubParsersAction[Parser],
    name: str,
    entry: tuple[str, str | None, Builder],
    full: bool,
) -> None:
    """Add ``name``'s parser: in full, or (``full`` false) its name and summary only."""
    summary, description, build = entry
    if not full:
        sub.add_parser(name, help=summary, add_help=False)
        return
    build(sub.add_parser(name, help=summary, description=description))


def _serve(p: argparse.ArgumentParser) -> None:
    from hookd.cli.options import SERVE_DESCRIPTION, configure_serve_parser

    p.description = SERVE_DESCRIPTION
    configure_serve_parser(p)


def _check(p: argparse.ArgumentParser) -> None:
    from hookd.cli.options import add_can_use_tool_option, add_hooks_arguments, positive_seconds
    from hookd.core.registration import DEFAULT_TIMEOUT_S

    add_hooks_arguments(p, "also load the command hooks of this settings file (repeatable)")
    add_can_use_tool_option(p)
    p.add_argument(
        "--timeout",
        type=positive_seconds,
        default=DEFAULT_TIMEOUT_S,
        metavar="SECONDS",
        help="default timeout of Python callbacks, as for serve (default: 30)",
    )


def _demo(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--hooks",
        metavar="HOOKS",
        default=None,
        help="hooks module to drive (default: the example guard shipped with hookd)",
    )


def _schema(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", nargs="?", metavar="NAME", help="schema to print")
    p.add_argument("--write", metavar="DIR", help="write every schema under DIR")


def _validate(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="JSON file, JSON lines, transcript, or -")
    p.add_argument(
        "--event", metavar="EVENT", help="the hook event of the outputs (when they do not say)"
    )


#: name -> (summary, description, builder), in the order ``hookd --help`` lists them.
LOCAL_COMMANDS: dict[str, tuple[str, str | None, Builder]] = {
    "serve": (
        "serve hooks on stdin/stdout (sidecar mode) or over HTTP (--http)",
        None,  # set by the builder, with the options
        _serve,
    ),
    "check": (
        "load HOOKS and print its registration table",
        "Load HOOKS (and --settings files) as `hookd serve` would and print each "
        "hook's id, event, matcher, timeout, failure policy, and where it runs (trio, asyncio "
        "or a thread) and why. A timeout marked (default) is --timeout, the default of Python "
        "callbacks; (command default) is Claude Code's 600 s, the default of command hooks "
        "whose settings entry sets none. Exits 1 with a one-line error when the module cannot "
        "be served.",
        _check,
    ),
    "demo": (
        "run a scripted session against an example module",
        "Start `hookd serve HOOKS` and play a short scripted session against it "
        "as a CLI would (a prompt, safe and dangerous Bash commands, a Read), printing each "
        "hook's answer and how long it took.",
        _demo,
    ),
    "schema": (
        "list JSON Schemas, print one, or write them all",
        "Without NAME, list the JSON Schemas hookd validates with (the protocol "
        "envelopes and the input and output of every hook event); with NAME "
        "(e.g. events/PreToolUse.output), print that schema; with --write DIR, write them all.",
        _schema,
    ),
    "validate": (
        "check hook outputs or a transcript offline",
        "Check hook outputs (one JSON object, or JSON lines) as `hookd serve` "
        "would send them: a missing hookEventName is filled in and continue_/async_ are "
        "renamed first. A transcript's requests and answers are checked as recorded. "
        "Exit 0 if all are valid, 1 if not, 2 if the input cannot be read.",
        _validate,
    ),
}
