"""Size-bounded log of a daemon whose stderr is a file (``--log-max-bytes``).

``hookd up`` starts the daemon with stdout and stderr on its log file. Once a
second the daemon looks at that file's size; past the limit it renames the
file to ``NAME.1`` (replacing the previous one) and points stdout and stderr
at a new, empty file, so the log takes at most twice the limit plus one
second's lines. Where the file's name cannot be found (no ``/proc``) or stderr
is not a regular file, nothing is done.
"""

from __future__ import annotations

import os
import stat
from typing import Final

import structlog
import trio

__all__ = ["keep_log_small", "rotate_if_large"]

log = structlog.get_logger("hookd.http")

CHECK_EVERY_S: Final = 1.0


async def keep_log_small(max_bytes: int) -> None:
    """Check stderr's size once a second, rotating it past ``max_bytes``; runs until cancelled."""
    while True:
        await trio.sleep(CHECK_EVERY_S)
        rotated = rotate_if_large(max_bytes)
        if rotated is not None:
            log.info("log.rotated", previous=rotated)


def rotate_if_large(max_bytes: int) -> str | None:
    """Rotate stderr's file when it is over ``max_bytes``; the previous file's new name."""
    try:
        info = os.fstat(2)
        if not stat.S_ISREG(info.st_mode) or info.st_size <= max_bytes:
            return None
        path = os.readlink("/proc/self/fd/2")
        if not os.path.isabs(path) or os.stat(path).st_ino != info.st_ino:
            return None  # renamed or removed by someone else: leave it
        os.replace(path, path + ".1")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    except OSError:
        return None
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    return path + ".1"
