"""The process's own stdio, given over to the protocol (stdlib only)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["protocol_stdio", "write_all"]


@contextmanager
def protocol_stdio() -> Iterator[tuple[int, int]]:
    """Keep private copies of fds 0 and 1 for the protocol; hide the real ones.

    fd 1 (and ``sys.stdout``) then point at stderr and fd 0 at /dev/null, so a
    hook that prints, or a process it starts, cannot corrupt the stream.
    """
    sys.stdout.flush()
    proto_in, proto_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    try:
        yield proto_in, proto_out
    finally:
        for fd in (proto_in, proto_out):
            with contextlib.suppress(OSError):
                os.set_blocking(fd, True)


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to a blocking ``fd``."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
