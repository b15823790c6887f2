"""Writing files without following a link hookd did not make.

A repository can ship a symbolic link where hookd writes (``settings.local.json.hookd.bak
-> /tmp/x/stolen``, ``.git/info/exclude -> ~/.bashrc``, a recording's name): a write that
followed it would put the user's data where the link points. Here every write:

- refuses a path that is a symbolic link, or not a regular file, in one line naming it
  (:class:`LinkError`), before anything is written anywhere;
- refuses a link among the folders between ``within`` (the project) and the file, and a
  folder that other users may write or that is not this user's (``private_folder``);
- creates new files with ``O_CREAT | O_EXCL | O_NOFOLLOW`` and replaces existing ones by
  writing a temporary file (``O_EXCL | O_NOFOLLOW``) in the same folder and renaming it over
  the old one, so that a link planted after the check is replaced, never followed.

Standard library only, and nothing imported that ``hookd up`` would pay for.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from hookd.errors import HookdError

__all__ = [
    "LinkError",
    "check_folder",
    "check_folders",
    "check_target",
    "create_file",
    "make_folders",
    "open_for_writing",
    "read_regular",
    "replace_file",
]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_FIX = "hookd writes no file through a link it did not make; remove the link"


class LinkError(HookdError, OSError):
    """A path hookd will not write: a symbolic link, not a regular file, or an unsafe folder
    (an ``OSError`` too, so that a caller's handling of a file it cannot write applies)."""


def _link(path: Path | str) -> LinkError:
    return LinkError(f"{path}: a symbolic link; {_FIX}")


def _kind(path: Path, *, missing_ok: bool = True) -> os.stat_result | None:
    """``path``'s own status (links not followed); a :class:`LinkError` for a link."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        if missing_ok:
            return None
        raise
    except NotADirectoryError:
        return None
    if stat.S_ISLNK(info.st_mode):
        raise _link(path)
    return info


def _folders_below(folder: Path, within: Path | None) -> list[Path]:
    """The folders from just below ``within`` down to ``folder`` (none when it is not under it)."""
    if within is None:
        return []
    try:
        rest = folder.relative_to(within)
    except ValueError:
        return []
    out, here = [], within
    for part in rest.parts:
        here = here / part
        out.append(here)
    return out


def _check_folder(folder: Path) -> None:
    """The existing folder a file goes in is this user's (or root's), and only they write it."""
    try:
        info = folder.stat()
    except FileNotFoundError:
        return  # made by hookd, as this user
    mode = stat.S_IMODE(info.st_mode)
    if not stat.S_ISDIR(info.st_mode):
        raise LinkError(f"{folder}: not a folder")
    if info.st_uid not in (os.geteuid(), 0) or mode & stat.S_IWOTH:
        raise LinkError(
            f"{folder}: other users can write this folder (owner uid {info.st_uid}, mode "
            f"{mode:o}); hookd writes only in folders of your own"
        )


def check_folders(folder: Path, within: Path | None) -> None:
    """Refuse a link, or what is not a folder, among the folders from ``within`` down to
    ``folder`` (those that exist: hookd makes the rest)."""
    for part in _folders_below(folder, within):
        info = _kind(part)
        if info is None:
            break  # hookd makes the rest
        if not stat.S_ISDIR(info.st_mode):
            raise LinkError(f"{part}: not a folder")


def check_folder(folder: Path) -> None:
    """Refuse (:class:`LinkError`) a folder that is not this user's (nor root's), or that
    other users may write."""
    _check_folder(folder)


def check_target(path: Path, *, within: Path | None = None, private_folder: bool = True) -> None:
    """Refuse to write ``path`` (one line, :class:`LinkError`) when it is a symbolic link or
    not a regular file, when a folder between ``within`` and it is a link, or (with
    ``private_folder``) when its folder is not this user's own."""
    check_folders(path.parent, within)
    info = _kind(path)
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise LinkError(f"{path}: not a regular file")
    if private_folder:
        _check_folder(path.parent)


def make_folders(folder: Path, *, within: Path | None = None) -> None:
    """``mkdir -p folder``, refusing a link among the folders below ``within``."""
    check_folders(folder, within)
    folder.mkdir(parents=True, exist_ok=True)


def read_regular(path: Path) -> bytes | None:
    """The bytes of a regular file, read without following a link; None when there is none."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _os_error(path, exc) from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise LinkError(f"{path}: not a regular file")
        return f.read()


def _os_error(path: Path | str, exc: OSError) -> HookdError:
    if exc.errno == errno.ELOOP:
        return _link(path)
    return LinkError(f"{path}: {exc.strerror}")


def _write_all(fd: int, data: bytes, mode: int) -> None:
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fchmod(f.fileno(), mode)  # the umask may have narrowed it
        os.fsync(f.fileno())


def create_file(
    path: Path,
    data: bytes,
    mode: int = 0o600,
    *,
    within: Path | None = None,
    private_folder: bool = True,
) -> bool:
    """Create ``path`` holding ``data``; False (nothing written) when a file is there already.

    ``O_CREAT | O_EXCL | O_NOFOLLOW``: a link at ``path``, dangling or not, is refused."""
    check_target(path, within=within, private_folder=private_folder)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, mode)
    except FileExistsError:
        _kind(path)  # a link planted since the check is named as one
        return False
    except OSError as exc:
        raise _os_error(path, exc) from None
    try:
        _write_all(fd, data, mode)
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return True


def replace_file(
    path: Path,
    data: bytes,
    mode: int = 0o600,
    *,
    within: Path | None = None,
    private_folder: bool = True,
) -> None:
    """Replace ``path`` with ``data`` atomically: a temporary file (``O_EXCL | O_NOFOLLOW``)
    in the same folder, fsync, rename. A link at ``path`` is refused, never followed."""
    check_target(path, within=within, private_folder=private_folder)
    tmp = path.with_name(f".{path.name}.{os.urandom(4).hex()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, mode)
    try:
        _write_all(fd, data, mode)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def open_for_writing(path: Path | str, mode: int = 0o600, *, append: bool = False) -> int:
    """A descriptor open for writing ``path`` (created, else truncated or appended to),
    never through a link (``O_NOFOLLOW``: a link is a :class:`LinkError`); a path that is not
    a regular file (a FIFO, a device) is refused too, without waiting on it."""
    how = os.O_APPEND if append else os.O_TRUNC
    flags = os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | how | _NOFOLLOW | _CLOEXEC
    try:
        fd = os.open(path, flags, mode)
    except OSError as exc:
        raise _os_error(path, exc) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise LinkError(f"{path}: not a regular file")
    os.set_blocking(fd, True)
    return fd
