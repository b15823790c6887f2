"""Load a new version of the hooks in a child process first, under a deadline.

An import that never finishes (a loop, a wait at module level) would hold the
daemon's worker thread and the GIL for good. The child runs ``hookd check``
with the daemon's own hooks options: only if it loads and registers the hooks
within the deadline does the daemon load them itself. A child past its
deadline is killed.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence

import structlog
import trio

__all__ = ["check_argv", "check_in_child"]

log = structlog.get_logger("hookd.reload")

_PREFIX = "hookd check: error: "


def check_argv(
    hooks: str,
    *,
    settings: Sequence[str] = (),
    can_use_tool: str | None = None,
    timeout_s: float | None = None,
) -> list[str]:
    """``hookd check`` for the daemon's hooks, in this interpreter, writing no bytecode, the
    module's folder not before hookd's own dependencies on ``sys.path``."""
    argv = [sys.executable, "-B", "-P", "-m", "hookd", "check", hooks]  # -P: R-D55
    for path in settings:
        argv += ["--settings", path]
    if can_use_tool is not None:
        argv += ["--can-use-tool", can_use_tool]
    if timeout_s is not None:
        argv += ["--timeout", f"{timeout_s:g}"]
    return argv


async def check_in_child(argv: Sequence[str], module: str, deadline_s: float) -> str | None:
    """Run the check ``argv``; None when it loaded the hooks, else why not (one line)."""
    try:
        process = await trio.lowlevel.open_process(
            list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
    except OSError as exc:
        return f"{module}: cannot start the check process: {exc.strerror or exc}"
    log.info("reload.checking", path=module, pid=process.pid)
    try:
        with trio.move_on_after(deadline_s):
            stderr = await _read_all(process.stderr)
            code = await process.wait()
            return None if code == 0 else _why(stderr.decode(errors="replace"), code)
    finally:
        if process.returncode is None:
            process.kill()
            with trio.CancelScope(shield=True):
                await process.wait()
    return (
        f"{module}: loading did not finish within {deadline_s:g}s (a loop or a wait "
        "at import?); the new version was not loaded"
    )


async def _read_all(stream: trio.abc.ReceiveStream | None) -> bytes:
    data = bytearray()
    if stream is not None:
        async with stream:
            while chunk := await stream.receive_some():
                data += chunk
    return bytes(data)


def _why(stderr: str, code: int) -> str:
    """The check's error line, else its last line."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    for line in lines:
        if line.startswith(_PREFIX):
            return line.removeprefix(_PREFIX)
    return lines[-1] if lines else f"the check exited with status {code}"
