"""``hookd run`` on the command line: its parser, and the options it hands host mode."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from hookd.cli.options import add_can_use_tool_option, add_log_options, positive_seconds
from hookd.core.registry import DEFAULT_TIMEOUT_S

__all__ = ["add_run_parser", "cli_command", "configure_run_parser", "run_main"]

DESCRIPTION = """\
Start a Claude-style coding CLI as a child process, serve HOOKS to it over its
control protocol, and run one prompt (-p) or the stream-json user messages read
from stdin. hookd sends `initialize` with the hooks first, answers every hook
and permission request, keeps the CLI's stdin open until the run is over, and
exits with a code that says how the run ended (below).

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
  echo "list the TODOs" | hookd run --hooks my_hooks.py -- claude

Without -p, each stdin line is a stream-json message, or plain text taken as a
prompt; each prompt is sent once the CLI has finished the one before it.

exit codes (a line on stderr says why whenever it is not 0):
  0    the run finished (the CLI's own code if it exited non-zero after that)
  1    the CLI refused initialize, or did not answer it within --init-timeout
  2    bad options
  3    the CLI exited before the run was over (before initialize, or before
       the result of the last prompt)
  4    a hook stopped the run (HookAbortError, or an output with continue: false)
  5    a hook blocked the prompt (UserPromptSubmit decision: block)
  127  the CLI could not be started
  130  interrupted (Ctrl-C / SIGINT; 143 for SIGTERM): the CLI was stopped
"""


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
    _add_run_options(p)
    add_can_use_tool_option(p)
    add_log_options(p, default_level="warning")
    p.add_argument(
        "cli_command",
        nargs=argparse.REMAINDER,
        metavar="-- CLI_COMMAND",
        help="the CLI to run and its arguments, after `--` (default: claude)",
    )


def _add_run_options(p: argparse.ArgumentParser) -> None:
    """Timeouts, validation and the progress view."""
    p.add_argument(
        "--timeout",
        type=positive_seconds,
        default=30.0,
        metavar="SECONDS",
        help="timeout of the hooks that set none (default: 30)",
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
    p.add_argument(
        "--cli-stderr",
        default="auto",
        metavar="FILE",
        help="where the CLI's own stderr goes: FILE, or - for hookd's stderr (default: auto = "
        "hookd's stderr, except with the progress view on: a temporary file, named in one "
        "short line at the end of the view)",
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


def cli_command(args: argparse.Namespace) -> list[str]:
    """CLI_COMMAND without the ``--`` that introduces it."""
    command = list(args.cli_command)
    return command[1:] if command[:1] == ["--"] else command


def run_main(args: argparse.Namespace) -> int:
    """``hookd run``: check the arguments, then hand the run to host mode."""
    from hookd import logs as hookd_log
    from hookd.host.clistderr import stderr_log_path
    from hookd.host.driver import HostOptions
    from hookd.host.main import run_cli
    from hookd.serve.config import ServeConfig

    hookd_log.configure(args.log_level, args.log_format)
    if args.prompt is None and os.isatty(0):
        message = "no prompt: pass -p PROMPT, or pipe stream-json user messages to stdin"
        print(f"hookd run: error: {message}", file=sys.stderr)
        return 2
    progress = args.progress == "always" or (args.progress == "auto" and os.isatty(2))
    keep = args.cli_stderr if args.cli_stderr != "auto" or progress else "-"
    options = HostOptions(
        prompt=args.prompt,
        init_timeout_s=args.init_timeout,
        progress=progress,
        cli_stderr=stderr_log_path(keep),
        config=ServeConfig(validate=args.validate, finish_on_eof=False),
        hooks=args.hooks,
        serve_args=_serve_args(args),
    )
    return run_cli(
        args.hooks, args.timeout, cli_command(args), options, can_use_tool=args.can_use_tool
    )


def _serve_args(args: argparse.Namespace) -> tuple[str, ...]:
    """The ``hookd serve`` options that give the same answers as this run."""
    timeout = ("--timeout", f"{args.timeout:g}") if args.timeout != DEFAULT_TIMEOUT_S else ()
    permission = ("--can-use-tool", args.can_use_tool) if args.can_use_tool else ()
    return (*timeout, *permission, *(() if args.validate else ("--no-validate",)))
