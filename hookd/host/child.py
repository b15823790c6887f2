"""A child process hookd stands in front of: signals passed on, exit status, reaping."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Callable
from typing import Final

import structlog
import trio

__all__ = ["EXIT_GRACE_S", "TERM_GRACE_S", "exit_status", "forward_signals", "reap"]

log = structlog.get_logger("hookd.host")

#: How long the CLI gets to exit once its stdout closed, then after SIGTERM.
EXIT_GRACE_S: Final = 10.0
TERM_GRACE_S: Final = 5.0


def exit_status(returncode: int | None) -> int:
    """A child's exit status as a shell reports it: 128 + N when signal N ended it."""
    if returncode is None:
        return 1
    return 128 - returncode if returncode < 0 else returncode


async def forward_signals(
    proc: trio.Process,
    *,
    kill_on_repeat: bool,
    on_signal: Callable[[int], None] | None = None,
) -> None:
    """SIGINT/SIGTERM go on to ``proc``; with ``kill_on_repeat`` a second one kills it."""
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        count = 0
        async for signum in signals:
            count += 1
            if on_signal is not None:
                on_signal(signum)
            if proc.returncode is not None:
                continue
            log.info("child.signal", signal=signal.Signals(signum).name, count=count)
            with contextlib.suppress(ProcessLookupError):
                if count > 1 and kill_on_repeat:
                    proc.kill()
                else:
                    proc.send_signal(signum)


async def reap(proc: trio.Process) -> int:
    """Wait for ``proc`` to exit (SIGTERM, then SIGKILL, if it lingers); its exit status."""
    with trio.move_on_after(EXIT_GRACE_S):
        return exit_status(await proc.wait())
    proc.terminate()
    with trio.move_on_after(TERM_GRACE_S):
        return exit_status(await proc.wait())
    proc.kill()
    return exit_status(await proc.wait())
