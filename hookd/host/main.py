"""``hookd run``: hookd spawns the CLI, serves hooks to it, and exits with its code.

The run itself is :class:`hookd.host.driver.Driver`; this module starts the CLI
process, forwards signals to it, and parses the command line.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from typing import Final

import structlog
import trio

from hookd.cli.run import (
    CommandError,
    add_run_parser,
    build_run_parser,
    cli_command,
    complete_command,
)
from hookd.core.loader import load_hooks
from hookd.core.registry import DEFAULT_TIMEOUT_S, Registry
from hookd.errors import HookdError
from hookd.host.driver import Driver, HostOptions
from hookd.host.stdio import HostIO, open_host_io, reap
from hookd.serve import log as hookd_log
from hookd.serve.config import ServeConfig
from hookd.transcript.format import RECORD_ENV

__all__ = ["HostOptions", "add_run_parser", "cli_environment", "main", "run_host", "run_main"]

log = structlog.get_logger("hookd.host")

SESSION_STATE_ENV: Final = "CLAUDE_CODE_SDK_READS_SESSION_STATE"


def cli_environment(environ: Mapping[str, str]) -> tuple[dict[str, str], bool]:
    """The CLI's environment, and whether hookd itself asked for session-state frames.

    ``HOOKD_RECORD`` is hookd's own: a ``hookd serve`` the CLI starts must not
    write into the same transcript.
    """
    env = {k: v for k, v in environ.items() if k != RECORD_ENV}
    if SESSION_STATE_ENV in env:
        return env, False
    return {**env, SESSION_STATE_ENV: "1"}, True


async def run_host(
    registry: Registry, argv: Sequence[str], options: HostOptions, io: HostIO
) -> int:
    """Run the CLI ``argv`` under ``registry``'s hooks; return hookd's exit code."""
    env, asked_state = cli_environment(os.environ)
    try:
        proc = await trio.lowlevel.open_process(
            list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
        )
    except OSError as exc:
        print(f"hookd run: error: cannot run {argv[0]!r}: {exc.strerror or exc}", file=sys.stderr)
        return 127
    log.info("cli.started", pid=proc.pid, argv=list(argv))
    driver = Driver(registry, proc, options, io, hide_host_only=asked_state)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_forward_signals, proc)
            await driver.run()
            code = await reap(proc)
            nursery.cancel_scope.cancel()
    finally:
        if proc.returncode is None:
            proc.kill()
    log.info("cli.exited", code=code)
    return 1 if driver.failure is not None else code


async def _forward_signals(proc: trio.Process) -> None:
    """SIGINT/SIGTERM go on to the CLI (which ends the run); a second one kills it."""
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        count = 0
        async for signum in signals:
            count += 1
            if proc.returncode is not None:
                continue
            log.info("run.signal", signal=signal.Signals(signum).name, count=count)
            if count == 1:
                proc.send_signal(signum)
            else:
                proc.kill()


def run_main(args: argparse.Namespace) -> int:
    """``hookd run``: load the hooks, start the CLI, drive the run to its exit code."""
    hookd_log.configure(args.log_level, args.log_format)
    if args.prompt is None and os.isatty(0):
        return _fail("no prompt: pass -p PROMPT, or pipe stream-json user messages to stdin", 2)
    with open_host_io(read_stdin=args.prompt is None) as io:  # before a hook can print
        try:
            registry = load_hooks(args.hooks, Registry(default_timeout_s=args.timeout))
            argv = complete_command(
                cli_command(args), can_use_tool=registry.can_use_tool is not None
            )
        except CommandError as exc:
            return _fail(str(exc), 2)
        except (HookdError, ValueError) as exc:
            return _fail(str(exc), 1)
        code = trio.run(run_host, registry, argv, _options(args), io)
    hookd_log.flush()
    return code


def _options(args: argparse.Namespace) -> HostOptions:
    progress = args.progress == "always" or (args.progress == "auto" and os.isatty(2))
    return HostOptions(
        prompt=args.prompt,
        init_timeout_s=args.init_timeout,
        progress=progress,
        config=ServeConfig(validate=args.validate),
        hooks=args.hooks,
        serve_args=_serve_args(args),
    )


def _serve_args(args: argparse.Namespace) -> tuple[str, ...]:
    """The ``hookd serve`` options that give the same answers as this run."""
    timeout = ("--timeout", f"{args.timeout:g}") if args.timeout != DEFAULT_TIMEOUT_S else ()
    return (*timeout, *(() if args.validate else ("--no-validate",)))


def _fail(message: str, code: int) -> int:
    print(f"hookd run: error: {message}", file=sys.stderr)
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m hookd.host.main --hooks HOOKS [-p PROMPT] -- CLI_COMMAND...``."""
    return run_main(build_run_parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
