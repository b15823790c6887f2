"""hookd's own stdio in ``hookd run``, and ending the CLI process."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Final

import trio

from hookd.serve.service import protocol_stdio

__all__ = ["HostIO", "ThreadWriter", "open_host_io", "reap", "thread_writer"]

#: How long the CLI gets to exit once its stdout closed, then after SIGTERM.
EXIT_GRACE_S: Final = 10.0
TERM_GRACE_S: Final = 5.0


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
    """Private copies of fds 0 and 1 as streams; hooks that print reach stderr only."""
    with protocol_stdio() as (fd_in, fd_out):
        relay = not os.isatty(fd_out)
        stdin = trio.lowlevel.FdStream(fd_in) if read_stdin else None
        stdout = trio.lowlevel.FdStream(fd_out) if relay else None
        yield HostIO(stdin, stdout)


class ThreadWriter(trio.abc.SendStream):
    """Blocking writes to a file descriptor from a worker thread.

    For stderr, which the CLI shares: unlike :class:`trio.lowlevel.FdStream` it
    leaves the descriptor in blocking mode.
    """

    def __init__(self, fd: int) -> None:
        self._fd = fd

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await trio.to_thread.run_sync(_write_all, self._fd, bytes(data))

    async def wait_send_all_might_not_block(self) -> None:
        """Writes happen in a thread: never blocks the caller's task."""

    async def aclose(self) -> None:
        """The descriptor is not owned: nothing to close."""


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def thread_writer(fd: int) -> ThreadWriter:
    """A send stream writing to ``fd`` without changing its mode."""
    return ThreadWriter(fd)


async def reap(proc: trio.Process) -> int:
    """Wait for the CLI to exit (SIGTERM, then SIGKILL, if it lingers).

    Returns its exit code, or 128 + N when signal N ended it, as a shell would.
    """
    with trio.move_on_after(EXIT_GRACE_S):
        return _exit_code(await proc.wait())
    proc.terminate()
    with trio.move_on_after(TERM_GRACE_S):
        return _exit_code(await proc.wait())
    proc.kill()
    return _exit_code(await proc.wait())


def _exit_code(returncode: int) -> int:
    return 128 - returncode if returncode < 0 else returncode
