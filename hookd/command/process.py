"""Run one child process in its own process group, with capped output.

The child gets its input on stdin; stdout and stderr are read concurrently and
kept up to a byte cap (the rest is read and dropped, so the child never blocks
on a full pipe). If the caller is cancelled (a timeout, or the request was
withdrawn), the whole process group gets SIGTERM at once and SIGKILL after a
grace period. The grace period runs in a background task, so the caller's
answer is not delayed by a child that is slow to die.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from typing import Final

import structlog
import trio

from hookd.command.result import MAX_OUTPUT_BYTES, Finished

__all__ = ["GRACE_S", "run_process"]

log = structlog.get_logger("hookd.process")

#: Seconds between SIGTERM and SIGKILL when a command is stopped.
GRACE_S: Final = 2.0
_CHUNK: Final = 65536


class _Capture:
    """Keeps the first ``limit`` bytes of a stream and drops the rest."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.chunks: list[bytes | bytearray] = []
        self.size = 0
        self.truncated = False

    async def read_all(self, stream: trio.abc.ReceiveStream | None) -> None:
        if stream is None:  # pragma: no cover - always a pipe here
            return
        while chunk := await stream.receive_some(_CHUNK):
            room = self.limit - self.size
            if room > 0:
                self.chunks.append(chunk[:room])
                self.size += min(room, len(chunk))
            if len(chunk) > room:
                self.truncated = True

    @property
    def data(self) -> bytes:
        return b"".join(self.chunks)


async def run_process(
    argv: Sequence[str],
    *,
    input_bytes: bytes,
    cwd: str | None,
    env: Mapping[str, str],
    max_output_bytes: int = MAX_OUTPUT_BYTES,
    grace_s: float = GRACE_S,
) -> Finished:
    """Run ``argv`` to completion; raise ``OSError`` if it cannot start."""
    proc = await trio.lowlevel.open_process(
        list(argv),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=dict(env),
        start_new_session=True,
    )
    out, err = _Capture(max_output_bytes), _Capture(max_output_bytes)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_feed, proc.stdin, input_bytes)
            nursery.start_soon(out.read_all, proc.stdout)
            nursery.start_soon(err.read_all, proc.stderr)
        returncode = await proc.wait()
    except BaseException:
        stop_group(proc, grace_s)
        raise
    await _close_streams(proc)
    return Finished(returncode, out.data, err.data, out.truncated, err.truncated)


async def _feed(stream: trio.abc.SendStream | None, data: bytes) -> None:
    if stream is None:  # pragma: no cover - always a pipe here
        return
    try:
        await stream.send_all(data)
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass  # the command exited without reading all of its input
    finally:
        with trio.CancelScope(shield=True):
            await stream.aclose()


def stop_group(proc: trio.Process, grace_s: float) -> None:
    """SIGTERM the process group now; SIGKILL it after ``grace_s`` (in the background)."""
    log.debug("process.stopping", pid=proc.pid, grace_s=grace_s)
    _signal_group(proc.pid, signal.SIGTERM)
    try:
        trio.lowlevel.spawn_system_task(_reap, proc, grace_s, name=f"hookd-reap-{proc.pid}")
    except RuntimeError:  # the run is shutting down: no time for grace
        _signal_group(proc.pid, signal.SIGKILL)


async def _reap(proc: trio.Process, grace_s: float) -> None:
    """Wait for the group to go after SIGTERM, then SIGKILL what is left."""
    done = False
    try:
        with trio.move_on_after(grace_s):
            await _drain(proc)
        _signal_group(proc.pid, signal.SIGKILL)  # ignored SIGTERM, or outlived the leader
        with trio.move_on_after(grace_s):  # bounded: a process stuck in the kernel
            await _drain(proc)
        done = True
        log.debug("process.reaped", pid=proc.pid, returncode=proc.returncode)
    finally:
        if not done:  # the run is ending: no more grace
            _signal_group(proc.pid, signal.SIGKILL)
        await _close_streams(proc)


async def _drain(proc: trio.Process) -> None:
    """Read both pipes to EOF (every holder is gone), then reap the leader."""
    async with trio.open_nursery() as nursery:
        for stream in (proc.stdout, proc.stderr):
            nursery.start_soon(_discard, stream)
    await proc.wait()


async def _discard(stream: trio.abc.ReceiveStream | None) -> None:
    if stream is None:  # pragma: no cover - always a pipe here
        return
    with contextlib.suppress(trio.ClosedResourceError, trio.BrokenResourceError):
        while await stream.receive_some(_CHUNK):
            pass


async def _close_streams(proc: trio.Process) -> None:
    with trio.CancelScope(shield=True):
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                await stream.aclose()


def _signal_group(pgid: int, signum: signal.Signals) -> None:
    """Signal every process of the group led by ``pgid`` (gone already: nothing to do)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)
