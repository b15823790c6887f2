"""Streams around the CLI in ``hookd run``: an unbounded outbound buffer, the CLI's stdin.

A :class:`LineSink` takes lines without ever blocking and has one task write
them out, so a slow reader of hookd's stdout (or a paused terminal) never
holds up the task that reads the CLI's control requests. :class:`CliInput` is
the CLI's stdin as the server's send stream, closed once at the end of the run
(never under a write in progress). :class:`Observed` lets the progress view see
the CLI's output.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import structlog
import trio

__all__ = ["CliInput", "LineSink", "Observed"]

log = structlog.get_logger("hookd.relay")

Observer = Callable[[bytes], None]
_WRITE_ERRORS = (trio.BrokenResourceError, trio.ClosedResourceError, OSError)


class LineSink:
    """An unbounded buffer of bytes, drained to one stream by :meth:`run`."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._chunks: list[bytes] = []
        self._wake = trio.Event()
        self._closed = False
        self.broken = False
        self.written_bytes = 0

    def put(self, data: bytes) -> None:
        """Queue ``data`` (never blocks; dropped once the stream is broken)."""
        if self.broken or self._closed:
            return
        self._chunks.append(data)
        self._wake.set()

    def close(self) -> None:
        """No more data: :meth:`run` writes what is queued, then returns."""
        self._closed = True
        self._wake.set()

    async def run(self, stream: trio.abc.SendStream) -> None:
        """Write queued data until :meth:`close`; a broken stream discards the rest."""
        while True:
            await self._wake.wait()
            self._wake = trio.Event()
            if self._chunks and not self.broken:
                data = b"".join(self._chunks)
                self._chunks.clear()
                await self._write(stream, data)
            if self._closed and not self._chunks:
                return

    async def _write(self, stream: trio.abc.SendStream, data: bytes) -> None:
        try:
            await stream.send_all(data)
        except _WRITE_ERRORS as exc:
            self.broken = True
            self._chunks.clear()
            log.warning("output.closed", stream=self.name, error=str(exc) or type(exc).__name__)
            return
        self.written_bytes += len(data)


class CliInput(trio.abc.SendStream):
    """The CLI's stdin: written by the server's one writer, closed once by the host.

    After :meth:`aclose` a late write is dropped (and logged), instead of
    tearing the server down while it still reads the CLI's last messages.
    """

    def __init__(self, stream: trio.abc.SendStream, observer: Observer | None = None) -> None:
        self._stream = stream
        self._observer = observer
        self._lock = trio.Lock()
        self.closed = False

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        async with self._lock:
            if self.closed:
                log.info("cli_stdin.late_write", bytes=len(data))
                return
            await self._stream.send_all(data)
        if self._observer is not None:
            self._observer(bytes(data))

    async def wait_send_all_might_not_block(self) -> None:
        await self._stream.wait_send_all_might_not_block()

    async def aclose(self) -> None:
        """Close the CLI's stdin after any write in progress (idempotent)."""
        async with self._lock:
            if self.closed:
                return
            self.closed = True
            with contextlib.suppress(*_WRITE_ERRORS):
                await self._stream.aclose()


class Observed(trio.abc.ReceiveStream):
    """A receive stream that shows every chunk it returns to ``observer``."""

    def __init__(self, stream: trio.abc.ReceiveStream, observer: Observer) -> None:
        self._stream = stream
        self._observer = observer

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        data = await self._stream.receive_some(max_bytes)
        if data:
            self._observer(bytes(data))
        return data

    async def aclose(self) -> None:
        await self._stream.aclose()
