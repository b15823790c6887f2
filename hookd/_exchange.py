"""Two Linux calls that make replacing a file safe beside a program that writes it in place:
``renameat2(RENAME_EXCHANGE)``, which makes two files trade names in one step, and write
leases (``fcntl(F_SETLEASE)``), under which another program's open of the file waits until
the lease is given up (and the holder can see that it waits). Each returns False where the
system or the file system has none. Standard library only (ctypes for the call Python does
not wrap)."""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from collections.abc import Callable
from pathlib import Path

__all__ = ["exchange", "lease", "same_file", "unlease", "wanted"]

_F_SETSIG = 10  # Linux's fcntl command: which signal tells of a lease to give up


def lease(fd: int) -> bool | None:
    """Take a write lease on the file open as ``fd``: True; None while another program has
    the file open; False where none is to be had (a file system without leases, not Linux,
    not the file's owner). The kernel tells of another program's open with SIGURG, which
    nothing here handles and which is ignored by default."""
    try:
        import fcntl
        import signal

        fcntl.fcntl(fd, _F_SETSIG, signal.SIGURG)
        fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_WRLCK)
    except (ImportError, AttributeError):
        return False
    except OSError as exc:
        return None if exc.errno in (errno.EAGAIN, errno.EBUSY) else False
    return True


def wanted(fd: int, leased: bool | None) -> bool:
    """Whether another program is waiting to open the file hookd holds a lease on."""
    if leased is not True:
        return False
    import fcntl

    try:
        return bool(fcntl.fcntl(fd, fcntl.F_GETLEASE) != fcntl.F_WRLCK)
    except OSError:
        return True


def unlease(fd: int) -> None:
    import fcntl

    with contextlib.suppress(OSError):
        fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)


def same_file(path: Path, fd: int) -> bool:
    """Whether ``path`` names the file open as ``fd`` (not one renamed there meanwhile)."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (info.st_dev, info.st_ino) == (mine.st_dev, mine.st_ino)


_RENAME_EXCHANGE, _AT_FDCWD = 2, -100
_call: list[Callable[..., int] | None] = []


def exchange(a: Path, b: Path) -> bool:
    """Swap the files named ``a`` and ``b`` in one step (Linux's ``renameat2`` with
    ``RENAME_EXCHANGE``); False where the system or the file system cannot."""
    if not _call:
        _call.append(_renameat2())
    call = _call[0]
    if call is None:
        return False
    if call(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    import ctypes

    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        _call[0] = None
        return False
    raise OSError(err, os.strerror(err), str(b))


def _renameat2() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        call = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    call.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    call.restype = ctypes.c_int
    result: Callable[..., int] = call
    return result
