"""``hookd run``: hookd spawns the CLI, serves hooks to it, and exits with its code.

The run itself is :class:`hookd.host.driver.Driver`; this module loads the hooks,
starts the CLI process and forwards signals to it. The command line is
:mod:`hookd.cli.run`'s.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Final

import structlog
import trio

from hookd.core.health import Quarantine
from hookd.core.loader import load_hooks
from hookd.core.registry import Registry
from hookd.errors import HookdError
from hookd.host.argv import CommandError, complete_command
from hookd.host.child import forward_signals, reap
from hookd.host.clistderr import CliStderr
from hookd.host.driver import Driver, HostOptions
from hookd.host.stdio import HostIO, open_host_io
from hookd.transcript.format import RECORD_ENV

__all__ = ["HostOptions", "cli_environment", "run_cli", "run_host"]

log = structlog.get_logger("hookd.host")

SESSION_STATE_ENV: Final = "CLAUDE_CODE_SDK_READS_SESSION_STATE"
#: How long the CLI's stderr may stay open after it exited (a child holding it).
STDERR_GRACE_S: Final = 2.0


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
    kept = CliStderr(options.cli_stderr) if options.cli_stderr is not None else None
    try:
        proc = await trio.lowlevel.open_process(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE if kept is not None else None,
            env=env,
        )
    except OSError as exc:
        hint = " (is Claude Code installed? give its path after --)" if argv[0] == "claude" else ""
        print(
            f"hookd run: error: cannot run {argv[0]!r}: {exc.strerror or exc}{hint}",
            file=sys.stderr,
        )
        return 127
    log.info("cli.started", pid=proc.pid, argv=list(argv))
    driver = Driver(registry, proc, options, io, hide_host_only=asked_state)
    try:
        async with trio.open_nursery() as nursery:
            signals = partial(forward_signals, on_signal=driver.record.signaled)
            nursery.start_soon(partial(signals, proc, kill_on_repeat=True))
            if kept is not None and proc.stderr is not None:
                nursery.start_soon(kept.keep, proc.stderr)
            await driver.run()
            code = await reap(proc)
            if kept is not None:
                with trio.move_on_after(STDERR_GRACE_S):  # what the CLI wrote as it exited
                    await kept.done.wait()
            nursery.cancel_scope.cancel()
    finally:
        if proc.returncode is None:
            proc.kill()
    log.info("cli.exited", code=code)
    summary = kept.summary() if kept is not None and options.progress else None
    return _end(driver, code, summary)


def _end(driver: Driver, code: int, summary: str | None) -> int:
    """Say how the run ended (see :mod:`hookd.host.ending`); hookd's exit code."""
    ending = driver.record.ending(code, initialized=driver.initialized, failure=driver.failure)
    for line in (summary, ending.line):
        if line is not None:
            print(line, file=sys.stderr, flush=True)
    return ending.code


def run_cli(
    hooks: str,
    timeout_s: float,
    command: Sequence[str],
    options: HostOptions,
    *,
    can_use_tool: str | None = None,
) -> int:
    """Load ``hooks``, start the CLI ``command``, drive the run; hookd's exit code.

    ``can_use_tool`` names the permission callback (``--can-use-tool``).
    """
    with open_host_io(read_stdin=options.prompt is None) as io:  # before a hook can print
        try:
            registry = load_hooks(
                hooks,
                Registry(default_timeout_s=timeout_s, quarantine=Quarantine.from_env()),
                can_use_tool=can_use_tool,
            )
            for doubt in registry.doubts():
                print(f"hookd run: warning: {doubt}", file=sys.stderr)
            argv = complete_command(command, can_use_tool=registry.can_use_tool is not None)
        except CommandError as exc:
            return _fail(str(exc), 2)
        except (HookdError, ValueError) as exc:
            return _fail(str(exc), 1)
        code = trio.run(run_host, registry, argv, options, io)
    return code


def _fail(message: str, code: int) -> int:
    print(f"hookd run: error: {message}", file=sys.stderr)
    return code
