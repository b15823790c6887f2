"""Reads and writes on a connected, non-blocking socket, with fewer trips through trio.

:meth:`trio.SocketStream.send_all` yields to the scheduler after every send,
even one the kernel took whole; an answer is small, so :func:`send` writes it
at once and waits only for what the kernel could not take. :func:`receive`
reads what is there, else waits until the socket is readable; either way it
yields to the scheduler, so a peer that keeps sending cannot hold the event loop. Both
raise ``OSError`` for a connection reset or broken.
"""

from __future__ import annotations

import os

import trio

__all__ = ["receive", "send"]


async def send(fd: int, data: bytes) -> None:
    """Write all of ``data``; without a scheduler pass when the kernel takes it at once."""
    view = memoryview(data)
    while True:
        try:
            sent = os.write(fd, view)
        except BlockingIOError:
            sent = 0
        view = view[sent:]
        if not view:
            return
        await trio.lowlevel.wait_writable(fd)


async def receive(fd: int, size: int) -> bytes:
    """Up to ``size`` bytes (``b""`` at the peer's end of file); a scheduler pass."""
    await trio.lowlevel.checkpoint_if_cancelled()  # a cancelled reader reads no more
    try:
        data = os.read(fd, size)
    except BlockingIOError:
        pass
    else:  # a pass of the scheduler, as trio's own read makes, that keeps what was read
        await trio.lowlevel.cancel_shielded_checkpoint()
        return data
    while True:
        await trio.lowlevel.wait_readable(fd)
        try:
            return os.read(fd, size)
        except BlockingIOError:
            continue
