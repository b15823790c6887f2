"""Load a new version of the hooks in a child process first, under a deadline.

An import that never finishes (a loop, a wait at module level) would hold the
daemon's worker thread and the GIL for good. The child runs ``hookd check``
with the daemon's own hooks options: only if it loads and registers the hooks
within the deadline does the daemon load them itself. A child past its
deadline is killed.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Sequence

import trio

__all__ = ["check_argv", "check_in_child"]

_PREFIX = "hookd check: error: "


def check_argv(
    hooks: str,
    *,
    settings: Sequence[str] = (),
    can_use_tool: str | None = None,
    timeout_s: float | None = None,
) -> list[str]:
    """``hookd check`` for the daemon's hooks, in this interpreter, writing no bytecode."""
    argv = [sys.executable, "-B", "-m", "hookd", "check", hooks]
    for path in settings:
        argv += ["--settings", path]
    if can_use_tool is not None:
        argv += ["--can-use-tool", can_use_tool]
    if timeout_s is not None:
        argv += ["--timeout", f"{timeout_s:g}"]
    return argv


async def check_in_child(argv: Sequence[str], module: str, deadline_s: float) -> str | None:
    """Run the check ``argv``; None when it loaded the hooks, else why not (one line)."""
    with trio.move_on_after(deadline_s) as late:
        done = await trio.run_process(
            list(argv),
            stdin=subprocess.DEVNULL,
            capture_stdout=True,
            capture_stderr=True,
            check=False,
            deliver_cancel=_kill,
        )
    if late.cancelled_caught:
        return (
            f"{module}: loading did not finish within {deadline_s:g}s (a loop or a wait "
            "at import?); the new version was not loaded"
        )
    if done.returncode == 0:
        return None
    return _why(done.stderr.decode(errors="replace"), done.returncode)


async def _kill(process: trio.Process) -> None:
    process.send_signal(signal.SIGKILL)


def _why(stderr: str, code: int) -> str:
    """The check's error line, else its last line."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    for line in lines:
        if line.startswith(_PREFIX):
            return line.removeprefix(_PREFIX)
    return lines[-1] if lines else f"the check exited with status {code}"
