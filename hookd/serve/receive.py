"""Reading the protocol stream: straight from its file descriptor when it has one.

trio's ``FdStream.receive_some`` yields to the scheduler before every read,
then reads, and when the pipe is empty (the usual case when requests come one
at a time) raises and catches ``BlockingIOError``, registers with epoll and
yields again: two passes of the scheduler per request. :class:`Receiver` waits
for the fd to be readable first, then reads: one pass, no exception, and still
a checkpoint (cancellable, and fair to the other tasks) before every read.
"""

from __future__ import annotations

import os

import trio

__all__ = ["Receiver"]


class Receiver:
    """``receive_some`` for the reader: fast on an ``FdStream``, delegated otherwise."""

    __slots__ = ("_fd", "_size", "_stream")

    def __init__(self, stream: trio.abc.ReceiveStream, size: int) -> None:
        self._stream = stream
        self._size = size
        self._fd = stream.fileno() if isinstance(stream, trio.lowlevel.FdStream) else None

    async def receive(self) -> bytes:
        """The next chunk of input; ``b""`` at EOF. Raises as ``receive_some`` does."""
        fd = self._fd
        if fd is None:
            return bytes(await self._stream.receive_some(self._size))
        while True:
            try:
                await trio.lowlevel.wait_readable(fd)
            except OSError:  # not pollable (a regular file): trio's own reads from now on
                self._fd = None
                return bytes(await self._stream.receive_some(self._size))
            try:
                return os.read(fd, self._size)
            except BlockingIOError:
                continue  # readable, but another reader of the pipe was first
            except OSError:  # closed or broken: trio's own read raises the right error
                return bytes(await self._stream.receive_some(self._size))
