"""hookd's own stdio in ``hookd run``."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import trio

from hookd.serve.stdio import protocol_stdio, write_all
from hookd.serve.user_input import ask_user_on_terminal

__all__ = ["HostIO", "ThreadWriter", "open_host_io"]


@dataclass(frozen=True, slots=True)
class HostIO:
    """Where hookd reads user messages from and writes the relayed conversation to.

    ``stdout`` is None when nothing is relayed (stdout is a terminal).
    """

    stdin: trio.abc.ReceiveStream | None
    stdout: trio.abc.SendStream | None
    stderr_fd: int = 2


@contextmanager
def open_host_io(*, read_stdin: bool) -> Iterator[HostIO]:
    """Private copies of fds 0 and 1 as streams; hooks that print reach stderr only.

    ``input()`` in a hook reads the controlling terminal, never hookd's stdin.
    """
    with protocol_stdio() as (fd_in, fd_out):
        previous = sys.stdin
        terminal = ask_user_on_terminal()
        relay = not os.isatty(fd_out)
        stdin = trio.lowlevel.FdStream(fd_in) if read_stdin else None
        stdout = trio.lowlevel.FdStream(fd_out) if relay else None
        try:
            yield HostIO(stdin, stdout)
        finally:
            sys.stdin = previous
            terminal.close()


class ThreadWriter(trio.abc.SendStream):
    """Blocking writes to a file descriptor from a worker thread.

    For stderr, which the CLI shares: unlike :class:`trio.lowlevel.FdStream` it
    leaves the descriptor in blocking mode.
    """

    def __init__(self, fd: int) -> None:
        self._fd = fd

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await trio.to_thread.run_sync(write_all, self._fd, bytes(data))

    async def wait_send_all_might_not_block(self) -> None:
        """Writes happen in a thread: never blocks the caller's task."""

    async def aclose(self) -> None:
        """The descriptor is not owned: nothing to close."""
