"""The single writer of the protocol stream: queued lines, joined into few writes.

Two tasks may not ``send_all`` at once, and a lock per send is several times
slower than one task that joins whatever has been queued. Lines are queued
without blocking; the reader writes them straight to the pipe when the writer
is idle (:meth:`Writer.write_now`), and waits when the peer stops reading
(:meth:`Writer.wait_drained`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Final

import structlog
import trio

__all__ = ["MAX_QUEUED_OUT_BYTES", "Writer"]

log = structlog.get_logger("hookd.server")

#: Past this many bytes of answers the peer has not read, hookd stops reading requests.
MAX_QUEUED_OUT_BYTES: Final = 8 * 1024 * 1024


class Writer:
    """Owns a send stream: one task writes, everyone else queues.

    Also hookd run's relays of the conversation to stdout and of notes to
    stderr: a slow reader never holds up the task that queues. Once the stream
    is broken, or the writer closed, further lines are dropped.
    """

    def __init__(self, name: str = "stdout") -> None:
        self.name = name
        self.broken = False
        self.written_bytes = 0
        self._out: list[bytes] = []
        self._bytes = 0
        self._wake = trio.Event()
        self._drained = trio.Event()
        self._sending = False
        self._closing = False
        self._fd: int | None = None
        self._deferred = False

    def send_line(self, line: bytes) -> None:
        """Queue one framed line (never blocks; dropped once broken or closed)."""
        if self.broken or self._closing:
            return
        self._out.append(line)
        self._bytes += len(line)
        if not self._deferred:
            self._wake.set()

    def defer(self) -> None:
        """Until the next :meth:`write_now`, queued lines do not wake the writer task.

        The reader calls this when it has read input: it answers inline and
        calls :meth:`write_now` before it waits for more, so waking the writer
        task for each of those answers would only cost a pass of the scheduler.
        """
        self._deferred = True

    def close(self) -> None:
        """Write what is queued, then stop."""
        self._closing = True
        self._wake.set()

    async def wait_drained(self) -> None:
        """Back-pressure: wait while the peer leaves too many answers unread."""
        while self._bytes > MAX_QUEUED_OUT_BYTES:
            self._drained = trio.Event()
            await self._drained.wait()

    def write_now(self) -> None:
        """Fast path: write queued lines straight to the pipe while the writer is idle.

        Only for a real file descriptor, only when no ``send_all`` is in
        progress, and never blocking: whatever the pipe does not take at once is
        left to the writer task (woken here). Ends a :meth:`defer`.
        """
        self._deferred = False
        if not self._out:
            return
        if self._sending or self._fd is None:
            self._wake.set()
            return
        data = b"".join(self._out)
        self._out.clear()
        self._bytes = 0
        try:
            written = os.write(self._fd, data)
        except OSError:  # would block, or a broken pipe that the writer task will meet
            written = 0
        self.written_bytes += written
        if written < len(data):
            self._out.append(data[written:])
            self._bytes += len(data) - written
            self._wake.set()

    async def run(
        self, send: trio.abc.SendStream, on_broken: Callable[[], None] | None = None
    ) -> None:
        """Write until :meth:`close`; call ``on_broken`` if the peer closed the stream."""
        self._fd = send.fileno() if isinstance(send, trio.lowlevel.FdStream) else None
        while True:
            await self._wake.wait()
            self._wake = trio.Event()
            if self._out and not await self._send(send):
                self.broken = True
                self._out.clear()
                if on_broken is not None:
                    on_broken()
                return
            if self._closing and not self._out:
                return

    async def _send(self, send: trio.abc.SendStream) -> bool:
        data = b"".join(self._out)
        self._out.clear()
        self._sending = True
        try:
            await send.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            log.warning(f"{self.name}.closed", error=str(exc) or type(exc).__name__)
            return False
        finally:
            self._sending = False
        self._bytes -= len(data)
        self.written_bytes += len(data)
        self._drained.set()
        return True
