"""The ``hookd`` command: argument parsing only; each command lives in its own module."""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Callable, Sequence

from hookd._version import __version__
from hookd.cli.daemon import DAEMON_PARSERS
from hookd.cli.parsers import LOCAL_COMMANDS, Parser, add_command

TYPE_CHECKING = False  # without importing typing (R-D22)
if TYPE_CHECKING:
    from typing import NoReturn

__all__ = ["build_parser", "main"]

DESCRIPTION = """\
Serve Python hooks to a Claude-style coding CLI over its control protocol
(newline-delimited JSON on stdin/stdout, or JSON-RPC 2.0 framing).

HOOKS is a Python file (path/to/hooks.py) or an importable module
(package.module) defining a module-level `hooks` dict in the Claude Agent SDK's
shape and/or callbacks decorated with @hookd.hook.
"""

EPILOG = """\
examples:
  hookd demo                              a scripted session against the bundled example guard
  hookd new                               a starter hooks.py and a passing test_hooks.py
  hookd test                              run those tests with hookd's own Python (pytest)
  hookd check hooks.py                    list registered hooks and their ids
  hookd install hooks.py                  serve hooks to interactive Claude Code (see README)
  hookd status                            the running daemons and their hooks' figures
  hookd doctor                            will each agent here call hookd? what to run if not
  hookd log --why                         why the latest denial was denied
  hookd guard 'sudo rm -rf ~'             what the destructive-command guard decides
  hookd whatif candidate.py hooks.py      which logged calls a candidate would decide otherwise
  hookd serve hooks.py                    serve on stdin/stdout (the CLI spawns this)
  hookd run --hooks hooks.py -p "list files" -- claude
                                          spawn the Claude Code CLI and serve it hooks
  hookd record --out session.jsonl -- hookd serve hooks.py
                                          record a session's protocol traffic
  hookd replay session.jsonl              replay a recorded session and diff the answers
  hookd schema events/PreToolUse.output   print a JSON Schema
  echo '{"decision": "block"}' | hookd validate --event Stop -
"""


#: Subcommands whose parsers live in heavier modules: name -> (module, adder, summary).
LAZY_COMMANDS: dict[str, tuple[str, str, str]] = {
    "run": (
        "hookd.cli.run",
        "add_run_parser",
        "run the CLI as a child process and serve hooks to it (host mode)",
    ),
    "replay": (
        "hookd.cli.replay",
        "add_replay_parser",
        "replay a transcript against `hookd serve` and diff the answers",
    ),
    "record": (
        "hookd.cli.record",
        "add_record_parser",
        "run a command and record its protocol traffic into a transcript",
    ),
    "new": (
        "hookd.cli.new",
        "add_new_parser",
        "write a starter hooks module and a passing test for it",
    ),
    "guard": (
        "hookd.cli.guard",
        "add_guard_parser",
        "show what the destructive-command guard decides for a command line",
    ),
    "test": (
        "hookd.cli.pytest_runner",
        "add_test_parser",
        "run pytest with hookd's own Python (for the tests `hookd new` writes)",
    ),
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``hookd`` argument parser; ``command`` names the subcommand that will run.

    Only that subcommand's parser is built; without one (``hookd --help``, a
    misspelt command) every command is listed by name and summary.
    """
    parser = Parser(
        prog="hookd",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"hookd {__version__}")
    sub = parser.add_subparsers(dest="subcommand", metavar="COMMAND", required=True)
    known = command in COMMANDS  # else list them all, for --help or the error
    for name, entry in LOCAL_COMMANDS.items():
        if name == command or not known:
            add_command(sub, name, entry, full=name == command)
    for name, (module, adder, summary) in LAZY_COMMANDS.items():
        if name == command:  # its module (and trio) is imported only when it runs
            getattr(importlib.import_module(module), adder)(sub)
        elif not known:
            sub.add_parser(name, help=summary, add_help=False)
    for name, entry in DAEMON_PARSERS.items():
        if name == command or not known:
            add_command(sub, name, entry, full=name == command)
    return parser


def _needs_hooks(args: argparse.Namespace) -> bool:
    if args.hooks is None and not args.settings:
        print(
            f"hookd {args.subcommand}: error: give HOOKS, --settings FILE, or both", file=sys.stderr
        )
        return True
    return False


def _run_serve(args: argparse.Namespace) -> int:
    from hookd.cli.serving import http_options, serve_options
    from hookd.errors import HookdError

    if _needs_hooks(args):
        return 2
    try:
        options = http_options(args) if args.http is not None else serve_options(args)
    except HookdError as exc:
        print(f"hookd serve: error: {exc}", file=sys.stderr)
        return 2
    if args.http is not None:
        from hookd.serve.config import HttpServeOptions
        from hookd.serve.http.service import run_http

        assert isinstance(options, HttpServeOptions)
        from hookd.install.routes import routes_task

        background = [routes_task(options)]  # which events the install's hook files leave out
        if options.reload:
            from hookd.daemon.reload import reload_task

            background.insert(0, reload_task(options))
        return run_http(options, background=background)
    from hookd.serve.config import ServeOptions
    from hookd.serve.service import run_service

    assert isinstance(options, ServeOptions)
    return run_service(options)


def _run_check(args: argparse.Namespace) -> int:
    from hookd.cli.check import check

    if _needs_hooks(args):
        return 2
    return check(args)


def _run_demo(args: argparse.Namespace) -> int:
    from hookd.cli.demo import run_demo

    return run_demo(args.hooks)


def _run_schema(args: argparse.Namespace) -> int:
    from hookd.cli.schema import schema_main

    return schema_main(args.name, args.write)


def _run_validate(args: argparse.Namespace) -> int:
    from hookd.cli.schema import validate_main

    return validate_main(args.file, args.event)


def _run_run(args: argparse.Namespace) -> int:
    from hookd.cli.run import run_main

    return run_main(args)


def _run_replay(args: argparse.Namespace) -> int:
    from hookd.cli.replay import replay_main

    return replay_main(args)


def _run_record(args: argparse.Namespace) -> int:
    from hookd.cli.record import record_main

    return record_main(args)


def _run_new(args: argparse.Namespace) -> int:
    from hookd.cli.new import new_main

    return new_main(args)


def _run_guard(args: argparse.Namespace) -> int:
    from hookd.cli.guard import guard_main

    return guard_main(args)


def _run_test(args: argparse.Namespace) -> int:
    from hookd.cli.pytest_runner import test_main

    return test_main(list(args.pytest_args))


def _run_daemon(args: argparse.Namespace) -> int:
    if args.subcommand == "log":
        from hookd.cli.log_commands import log_main

        return log_main(args)
    if args.subcommand == "doctor":
        from hookd.cli.doctor import doctor_main

        return doctor_main(args)
    if args.subcommand in ("install", "uninstall"):
        from hookd.cli import install_commands

        return int(getattr(install_commands, f"{args.subcommand}_main")(args))
    from hookd.cli import daemon_commands

    return int(getattr(daemon_commands, f"{args.subcommand}_main")(args))


def _run_whatif(args: argparse.Namespace) -> int:
    from hookd.cli.whatif import whatif_main

    return whatif_main(args)


def _unrecognized(parser: argparse.ArgumentParser, command: str, extra: list[str]) -> NoReturn:
    """Exit 2 with the subcommand's usage, the words it does not know and their closest flags."""
    import difflib

    sub: argparse.ArgumentParser = next(
        (a.choices[command] for a in parser._actions if isinstance(a, argparse._SubParsersAction)),
        parser,
    )
    flags = [flag for action in sub._actions for flag in action.option_strings]
    hints = [
        f"did you mean {close[0]}?"
        for word in extra
        if word.startswith("-")
        for close in [difflib.get_close_matches(word.partition("=")[0], flags, n=1)]
        if close
    ]
    said = f" ({' '.join(hints)})" if hints else ""
    sub.error(f"unrecognized arguments: {' '.join(extra)}{said}")


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    **dict.fromkeys(
        ("install", "uninstall", "up", "down", "status", "doctor", "call", "log"), _run_daemon
    ),
    "whatif": _run_whatif,
    "new": _run_new,
    "guard": _run_guard,
    "test": _run_test,
    "run": _run_run,
    "replay": _run_replay,
    "record": _run_record,
    "serve": _run_serve,
    "check": _run_check,
    "demo": _run_demo,
    "schema": _run_schema,
    "validate": _run_validate,
}


def _unknown_command(command: str) -> int:
    """One line for a command hookd does not have, with the closest one it has."""
    import difflib

    close = difflib.get_close_matches(command, list(COMMANDS), n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    print(f"hookd: error: no command {command!r}{hint}; `hookd --help` lists them", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``hookd`` console script."""
    words = list(sys.argv[1:] if argv is None else argv)
    command = next((w for w in words if not w.startswith("-")), None)
    if command is not None and command not in COMMANDS and words and words[0] == command:
        return _unknown_command(command)
    if words[:1] == ["test"]:  # every word after it is pytest's, options included
        from hookd.cli.pytest_runner import test_main

        return test_main(words[1:])
    gc.disable()  # the parsers' imports allocate much and free little
    try:
        parser = build_parser(command)
        args, extra = parser.parse_known_args(words)
    finally:
        gc.enable()
    if extra:
        _unrecognized(parser, args.subcommand, extra)
    try:
        return COMMANDS[args.subcommand](args)
    except BrokenPipeError:  # `hookd schema | head`: the reader left; not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
