"""Reading the protocol stream: straight from its file descriptor when it has one.

trio's ``FdStream.receive_some`` yields to the scheduler before every read,
then reads, and when the pipe is empty (the usual case when requests come one
at a time) raises and catches ``BlockingIOError``, registers with epoll and
yields again: two passes of the scheduler per request. :class:`Receiver` picks
by what the last reads found:

- while input keeps arriving before hookd asks for it (a client that sends its
  next request while hookd finishes the last answer, as one sharing hookd's CPU
  core does, or one that pipelines), it reads first: no epoll registration at
  all (a read that finds nothing costs one system call, not a pass of trio's
  scheduler: the checkpoint comes after a read that found input);
- once reading first has found nothing twice in a row, it waits for the fd to
  be readable first, then reads: one pass, no exception. Every
  :data:`PROBE_EVERY` reads of this kind it tries the first way again, so a
  change of pace is noticed.

Either way every read is a checkpoint (cancellable, and fair to the other tasks).
With the client on hookd's core, reading first took hookd's CPU per answer at 1 in
flight from about 20 to 15 us and its rate up by a quarter (`make bench`, one core).
"""

from __future__ import annotations

import os
from typing import Final

import trio

__all__ = ["MISSES", "PROBE_EVERY", "Receiver"]

#: Reads that waited for epoll before the next one tries reading first again.
PROBE_EVERY: Final = 32
#: Reads first in a row that found nothing before the reader waits first instead.
MISSES: Final = 2


class Receiver:
    """``receive_some`` for the reader: fast on an ``FdStream``, delegated otherwise."""

    __slots__ = ("_fd", "_misses", "_size", "_stream", "_waited")

    def __init__(self, stream: trio.abc.ReceiveStream, size: int) -> None:
        self._stream = stream
        self._size = size
        self._fd = stream.fileno() if isinstance(stream, trio.lowlevel.FdStream) else None
        self._waited = 0  # reads that waited for epoll since the last try at reading first
        self._misses = 0  # reads first in a row that found nothing

    @property
    def eager(self) -> bool:
        """True while reads first keep finding input: read before waiting."""
        return self._misses < MISSES

    async def receive(self) -> bytes:
        """The next chunk of input; ``b""`` at EOF. Raises as ``receive_some`` does."""
        fd = self._fd
        if fd is None:
            return bytes(await self._stream.receive_some(self._size))
        if self.eager or self._waited >= PROBE_EVERY:
            self._waited = 0
            await trio.lowlevel.checkpoint_if_cancelled()  # raises before anything is read
            try:
                data = os.read(fd, self._size)
            except BlockingIOError:  # nothing waiting (twice: wait for it from now on)
                self._misses += 1
            except OSError:  # closed or broken: trio's own read raises the right error
                return bytes(await self._stream.receive_some(self._size))
            else:
                self._misses = 0
                await trio.lowlevel.cancel_shielded_checkpoint()  # the other tasks' turn
                return data
        self._waited += 1
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
