"""Wait until a file of interest changes: inotify on Linux, watchfiles elsewhere.

On Linux the directories are watched with inotify and its descriptor is waited
on with ``trio.lowlevel.wait_readable``: no thread and no poll step, so an idle
daemon never wakes for it, and cancelling the waiting task stops it at once.
Directories are watched rather than files because editors often save by
renaming a new file over the old one.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import struct
import sys
from collections.abc import Callable
from typing import Final, Protocol

import trio

__all__ = ["DEBOUNCE_S", "Watcher", "open_watcher"]

#: Quiet after a change before it counts (an editor's save is several events).
DEBOUNCE_S: Final = 0.05

#: The inotify events that can mean new content at a path (``<sys/inotify.h>``).
_IN_MODIFY, _IN_ATTRIB, _IN_CLOSE_WRITE = 0x2, 0x4, 0x8
_IN_MOVED_FROM, _IN_MOVED_TO, _IN_CREATE, _IN_DELETE = 0x40, 0x80, 0x100, 0x200
_IN_Q_OVERFLOW: Final = 0x4000  # events were lost: count it as a change of every path
_IN_ONLYDIR: Final = 0x01000000
_MASK: Final = (
    _IN_MODIFY | _IN_ATTRIB | _IN_CLOSE_WRITE | _IN_MOVED_FROM | _IN_MOVED_TO | _IN_CREATE
) | _IN_DELETE
_EVENT: Final = struct.Struct("iIII")  # wd, mask, cookie, len; then len bytes of name

Wanted = Callable[[], set[str]]


class Watcher(Protocol):
    """Watches directories; :meth:`changed` returns after a change to a wanted path."""

    def watch(self, directory: str) -> None: ...

    async def changed(self, wanted: Wanted) -> None: ...

    def close(self) -> None: ...


class InotifyWatcher:
    """Linux: one inotify descriptor, waited on by the trio loop itself."""

    def __init__(self) -> None:
        self._libc = ctypes.CDLL(None, use_errno=True)
        fd = self._libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if fd < 0:
            raise _os_error("inotify_init1")
        self._fd: int = fd
        self._dirs: dict[int, str] = {}
        self._overflowed = False

    def watch(self, directory: str) -> None:
        """Watch ``directory`` (an absolute path) too; a second call for it does nothing."""
        if directory in self._dirs.values():
            return
        wd = self._libc.inotify_add_watch(self._fd, os.fsencode(directory), _MASK | _IN_ONLYDIR)
        if wd < 0:
            raise _os_error(f"inotify_add_watch {directory}")
        self._dirs[wd] = directory

    async def changed(self, wanted: Wanted) -> None:
        """Return once a wanted path changed and ``DEBOUNCE_S`` of quiet followed."""
        while not self._wanted_in(wanted, self._read()):
            await trio.lowlevel.wait_readable(self._fd)
        while True:
            with trio.move_on_after(DEBOUNCE_S) as quiet:
                await trio.lowlevel.wait_readable(self._fd)
            if quiet.cancelled_caught:
                return
            self._read()

    def _wanted_in(self, wanted: Wanted, paths: list[str]) -> bool:
        if self._overflowed:
            self._overflowed = False
            return True
        return not wanted().isdisjoint(paths)

    def _read(self) -> list[str]:
        """The paths named by the events queued so far."""
        try:
            data = os.read(self._fd, 64 * 1024)
        except BlockingIOError:
            return []
        paths: list[str] = []
        offset = 0
        while offset < len(data):
            wd, mask, _cookie, size = _EVENT.unpack_from(data, offset)
            self._overflowed |= bool(mask & _IN_Q_OVERFLOW)
            offset += _EVENT.size
            name = data[offset : offset + size].rstrip(b"\0")
            offset += size
            if wd in self._dirs and name:
                paths.append(os.path.join(self._dirs[wd], os.fsdecode(name)))
        return paths

    def close(self) -> None:
        trio.lowlevel.notify_closing(self._fd)
        os.close(self._fd)


class WatchfilesWatcher:
    """Elsewhere: watchfiles' watcher (a thread that polls the OS's events)."""

    def __init__(self) -> None:
        self._dirs: list[str] = []

    def watch(self, directory: str) -> None:
        if directory not in self._dirs:
            self._dirs.append(directory)

    async def changed(self, wanted: Wanted) -> None:
        from watchfiles import awatch

        def interesting(_change: object, path: str) -> bool:
            return os.path.realpath(path) in wanted()

        batches = awatch(
            *self._dirs,
            watch_filter=interesting,
            debounce=int(DEBOUNCE_S * 1000),
            recursive=False,
        )
        async with contextlib.aclosing(batches):
            async for _batch in batches:
                return

    def close(self) -> None:
        pass


def open_watcher() -> Watcher:
    """inotify on Linux, else watchfiles."""
    if sys.platform == "linux":
        with contextlib.suppress(OSError, AttributeError):
            return InotifyWatcher()
    return WatchfilesWatcher()


def _os_error(what: str) -> OSError:
    code = ctypes.get_errno() or errno.EINVAL
    return OSError(code, f"{what}: {os.strerror(code)}")
