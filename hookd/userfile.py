"""Rewriting a file that belongs to the user and to other programs, without losing theirs.

A settings file hookd edits is also written by the agent CLI (Claude Code rewrites its
settings when the user clicks "always allow"), by the user's editor, and is often a link
into the user's dotfiles. Here:

- **Links.** :func:`writable` gives the file to write: the path itself, or, when it is a
  symbolic link, the link's target, followed only when the link and the target are this
  user's, the target is a regular file in a folder only its owner (or root) can write, and,
  for a file in a project (``within``), the target is inside the project too (a link a
  repository ships pointing out of it is refused). Anything else is one line
  (:class:`~hookd.nofollow.LinkError`). The link stays a link: its target is rewritten.
- **Read-only files** (no owner write bit) are refused in one line, never replaced.
- **No lost update.** :func:`update` reads the file, has the caller work out the new text
  from what it read, writes it to a temporary file beside it, and renames that over the file
  only if the file is still what was read (else it starts again from the new content: the
  last edit made there as a second hunk when the parts changed are apart, :func:`_merged`,
  quick enough to land between a busy writer's writes; else edited anew). A
  program that writes the file in place is caught too (:func:`_put`): on Linux the new file
  and the old one trade names in one step, under a write lease on the old one, so that a
  program opening it meanwhile waits and is seen waiting, and the names are traded back
  before it goes on (:mod:`hookd._exchange`); elsewhere the old file, still open, is read
  again after the rename, and what it then holds is edited once more and put in place.

Standard library only, and nothing imported that ``hookd up`` would pay for.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable
from pathlib import Path

from hookd._exchange import exchange, lease, same_file, unlease, wanted
from hookd.errors import HookdError
from hookd.nofollow import LinkError, check_folder, check_folders, check_target

__all__ = ["ConflictError", "ReadOnlyError", "Seen", "remove_if_unchanged", "update", "writable"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
#: How often an edit starts again because another program changed the file meanwhile.
TRIES = 200
#: Between two tries: another program's write in progress (a truncated file) has time to end.
PAUSE_S = 0.002
#: A file the edit cannot read is taken as it is once it stayed so this many pauses (a
#: program stopped by a busy machine between truncating a file and writing it).
SETTLED_PAUSES = 10
#: A write into the old file is waited for to end, read every WATCH_S (their next write
#: builds on what is in place: the sooner theirs is put back, the likelier it is kept).
SETTLE_TRIES, WATCH_S = 250, 0.0002
_RULE = "hookd follows a link only to a regular file of yours, in a folder only you can write"


class ConflictError(HookdError, OSError):
    """Another program kept rewriting the file: no edit found it unchanged long enough."""


class ReadOnlyError(HookdError, OSError):
    """A file the user made read-only: hookd leaves it alone."""


class Seen:
    """What a file held when it was read: its bytes (None: no file) and permission bits."""

    __slots__ = ("data", "mode")

    def __init__(self, data: bytes | None, mode: int | None) -> None:
        self.data, self.mode = data, mode


def _refuse(path: Path, why: str, within: Path | None) -> LinkError:
    inside = ", inside the project" if within is not None else ""
    return LinkError(f"{path}: a symbolic link {why}; {_RULE}{inside}; remove the link")


def writable(path: Path, *, within: Path | None = None) -> Path:
    """The file to write for ``path`` (itself, or a link's target: see the module); a one-line
    :class:`LinkError` or :class:`ReadOnlyError` when hookd may not write it."""
    check_folders(path.parent, within)
    try:
        info = path.lstat()
    except FileNotFoundError:
        check_target(path, within=within)
        return path
    real = path
    if stat.S_ISLNK(info.st_mode):
        real = _followed(path, info, within)
    else:
        check_target(path, within=within)
    mode = stat.S_IMODE(real.stat().st_mode)
    if not mode & stat.S_IWUSR:
        raise ReadOnlyError(
            f"{path}: read-only (mode {mode:o}); hookd does not rewrite a file you made "
            f"read-only: make it writable (chmod u+w {path}) and run it again"
        )
    return real


def _followed(path: Path, info: os.stat_result, within: Path | None) -> Path:
    me = os.geteuid()
    if info.st_uid != me:
        raise _refuse(path, f"of another user (uid {info.st_uid})", within)
    real = Path(os.path.realpath(path))
    try:
        target = real.lstat()
    except OSError:
        raise _refuse(path, f"to nothing ({real})", within) from None
    if not stat.S_ISREG(target.st_mode):
        raise _refuse(path, f"to what is not a regular file ({real})", within)
    if target.st_uid != me:
        raise _refuse(path, f"to a file of another user ({real}, uid {target.st_uid})", within)
    if within is not None and not real.is_relative_to(os.path.realpath(within)):
        raise _refuse(path, f"to a file outside the project ({real})", within)
    try:
        check_folder(real.parent)
    except LinkError:
        why = f"into a folder other users can write ({real.parent})"
        raise _refuse(path, why, within) from None
    return real


def _open(path: Path) -> tuple[int | None, Seen]:
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _CLOEXEC)
    except FileNotFoundError:
        return None, Seen(None, None)
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise LinkError(f"{path}: not a regular file")
    return fd, Seen(_read_fd(fd), stat.S_IMODE(info.st_mode))


def _read_fd(fd: int) -> bytes:
    chunks, offset = [], 0
    while chunk := os.pread(fd, 1 << 16, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def _still(path: Path, fd: int | None, seen: Seen) -> bool:
    """Whether ``path`` is still the file read through ``fd`` and holds what was read."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return fd is None
    if fd is None:
        return False
    mine = os.fstat(fd)
    same = (info.st_dev, info.st_ino) == (mine.st_dev, mine.st_ino)
    return same and _read_fd(fd) == seen.data


def _settled(path: Path, fd: int | None, seen: Seen) -> bool:
    """Whether ``path`` still holds what was read a moment later: a file that is not what the
    edit can read may be another program's write in progress (truncated, not yet written)."""
    for _ in range(SETTLED_PAUSES):
        time.sleep(PAUSE_S)
        if not _still(path, fd, seen):
            return False
    return True


Edit = Callable[[Seen], tuple[bytes, int] | None]


def update(path: Path, edit: Edit, *, within: Path | None = None) -> bool:
    """Rewrite ``path`` with what ``edit`` makes of its content (``(bytes, mode)``; None: leave
    it as it is), replacing it only while it still holds what ``edit`` was given; True when
    written. ``edit`` may be called more than once, and may raise ``ValueError`` for content
    it cannot read (tried again while the file changes: a write in progress)."""
    theirs: bytes | None = None  # written into the old file while it was being replaced
    mine = b""  # what was put in its place
    wrote = False
    last: tuple[bytes, tuple[bytes, int]] | None = None  # the last try's content and edit
    for attempt in range(TRIES):
        real = writable(path, within=within)
        fd, seen = _open(real)
        if seen.data != mine:
            theirs = None  # already built upon (or replaced): theirs is older than what is there
        try:
            base = seen if theirs is None else Seen(theirs, seen.mode)
            merged = _merged(last, base.data)
            try:
                out = merged if merged is not None else edit(base)
            except ValueError:  # not JSON: broken, or a write in progress
                if theirs is None and _settled(real, fd, seen):
                    raise
                continue
            last = (base.data, out) if base.data is not None and out is not None else None
            if out is None and theirs is not None:
                out = (theirs, seen.mode if seen.mode is not None else 0o600)
            if out is None:
                return wrote
            done = _swap(real, fd, seen, out, patient=attempt < TRIES // 2)
        finally:
            if fd is not None:
                os.close(fd)
        if done is True:
            return True
        theirs, mine = (done or None), (out[0] if done else b"")
        wrote |= done is not False  # no pause: right after their write is the best moment
    raise ConflictError(f"{path}: another program kept rewriting it meanwhile; run it again")


def _merged(
    last: tuple[bytes, tuple[bytes, int]] | None, theirs: bytes | None
) -> tuple[bytes, int] | None:
    """The last try's edit made on what another program wrote since, when the parts the two
    changed are apart (as git merges two hunks): no new parse, so the next try is quick
    enough to land between that program's writes. None when they are not apart."""
    if last is None or theirs is None:
        return None
    base, (ours, mode) = last
    p0, p1 = _prefix(base, ours), _prefix(base, theirs)
    end0 = len(base) - _suffix(base, ours, p0)  # ours changed base[p0:end0]
    end1 = len(base) - _suffix(base, theirs, p1)  # theirs changed base[p1:end1]
    if p1 > end0:  # theirs after ours
        return ours[: len(ours) - (len(base) - end0)] + theirs[end0:], mode
    if end1 < p0:  # theirs before ours
        return theirs[: len(theirs) - (len(base) - p0)] + ours[p0:], mode
    return None


def _prefix(a: bytes, b: bytes) -> int:
    """The length of the bytes ``a`` and ``b`` start with alike (slices compare in C)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        low, high = (mid, high) if a[:mid] == b[:mid] else (low, mid - 1)
    return low


def _suffix(a: bytes, b: bytes, prefix: int) -> int:
    """The length of the bytes ``a`` and ``b`` end with alike, not into their common prefix."""
    low, high = 0, min(len(a), len(b)) - prefix
    while low < high:
        mid = (low + high + 1) // 2
        low, high = (mid, high) if a[len(a) - mid :] == b[len(b) - mid :] else (low, mid - 1)
    return low


def _swap(
    real: Path, fd: int | None, seen: Seen, out: tuple[bytes, int], *, patient: bool
) -> bool | bytes:
    """Put ``out`` in place of ``real`` if it still holds ``seen``: True; False when it does
    not (or, ``patient``, while another program has it open); the old file's new content
    when a program wrote it in place while it was replaced."""
    data, mode = out
    tmp = real.with_name(f".{real.name}.{os.urandom(4).hex()}.tmp")
    new = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, mode)
    try:
        with os.fdopen(new, "wb") as f:
            f.write(data)
            f.flush()
            os.fchmod(f.fileno(), mode)
            if not _put(real, tmp, fd, seen, patient=patient):
                return False
            os.fsync(f.fileno())  # after the swap: the window stays as narrow as it can be
    finally:
        tmp.unlink(missing_ok=True)
    if fd is not None and (after := _read_fd(fd)) != seen.data:
        for _ in range(SETTLE_TRIES):  # their write may still be going on: until it settles
            time.sleep(WATCH_S)
            again = _read_fd(fd)
            if again == after and again.strip():  # truncated, then written
                break
            after = again
        return after
    return True


def _put(real: Path, tmp: Path, fd: int | None, seen: Seen, *, patient: bool) -> bool:
    """Give ``tmp`` the name ``real`` if ``real`` still is the file read as ``fd`` and holds
    ``seen``; False (nothing changed) otherwise.

    On Linux, under a write lease on the file read: a program that opens it meanwhile waits
    (in the kernel) until hookd lets go of the lease, and hookd sees it wants to: the two
    files then trade names back before it goes on, so it reads or writes the file it meant
    to, and hookd starts again from what it writes."""
    if fd is None:
        if not _still(real, fd, seen):
            return False
        try:
            os.link(tmp, real)  # only where there is still no file
        except FileExistsError:
            return False
        return True
    leased = lease(fd)
    if leased is None and patient:
        return False  # another program has it open: it is about to read or write it
    try:
        if not _still(real, fd, seen) or wanted(fd, leased):
            return False
        if not exchange(tmp, real):
            os.replace(tmp, real)  # their write into the old file: found after (see _swap)
            return True
        if wanted(fd, leased) or not same_file(tmp, fd) or _read_fd(fd) != seen.data:
            exchange(tmp, real)  # back in place before the program that wants it goes on
            return False
        return True
    finally:
        if leased is True:
            unlease(fd)


def remove_if_unchanged(path: Path, expected: bytes) -> bool:
    """Remove ``path`` when it still holds ``expected``; False (left alone) otherwise."""
    fd, seen = _open(path)
    try:
        if fd is None or seen.data != expected or not _still(path, fd, seen):
            return False
        path.unlink()
        return True
    finally:
        if fd is not None:
            os.close(fd)
