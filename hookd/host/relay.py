"""Streams around the CLI in ``hookd run``: the CLI's stdin, and an observed stdout.

(hookd's own stdout and stderr are relayed by :class:`hookd.serve.writer.Writer`,
which never blocks the task that reads the CLI's control requests.) :class:`CliInput` is
the CLI's stdin as the server's send stream, closed once at the end of the run
(never under a write in progress). :class:`Observed` lets the progress view see
the CLI's output.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import structlog
import trio

__all__ = ["CliInput", "Observed"]

log = structlog.get_logger("hookd.relay")

Observer = Callable[[bytes], None]
_WRITE_ERRORS = (trio.BrokenResourceError, trio.ClosedResourceError, OSError)


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
