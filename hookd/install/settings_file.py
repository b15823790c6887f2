"""One settings or hook file: hookd's entries written into it, and taken back out.

Both go through :func:`hookd.userfile.update` (a link the user made is written through, a
read-only file refused, a change another program makes meanwhile never lost) and edit the
text (:mod:`hookd.daemon.entry_text`), so the user's bytes stay as they were around hookd's
entries. The file as it was before hookd's first entry is kept beside it
(``NAME.hookd.bak``, 0600, never replaced). Install notes the hash of what uninstall would
leave of the file it wrote; an uninstall that finds exactly that (nothing but hookd's entries,
or the token in them, changed meanwhile) puts the kept bytes back, so install then uninstall
gives back the user's file byte for byte. Otherwise only hookd's entries go.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookd.daemon.entry_text import (
    InstallError,
    Shape,
    drop_empty_hooks,
    has_entries,
    merge,
    parse,
    readable,
    strip,
)
from hookd.jsontext import Document
from hookd.nofollow import LinkError, check_target, create_file, make_folders, read_regular
from hookd.userfile import ReadOnlyError, Seen, remove_if_unchanged, update, writable

__all__ = [
    "Found", "backup_of", "check_file", "drop_made_dirs", "missing_dirs", "take_back",
    "write_entries",
]  # fmt: skip


@dataclass(frozen=True, slots=True)
class Found:
    """What an install found in the file, and the hash of what uninstall would leave."""

    created: bool
    had_hooks: bool
    mode: int | None
    restore: str | None


def backup_of(path: Path) -> Path:
    return path.with_name(path.name + ".hookd.bak")


def _hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check_file(path: Path, within: Path | None) -> None:
    """Refuse (one line, :class:`InstallError`) a file hookd may not write: a link it may not
    follow, a read-only file, a backup that is a link, a folder others may write."""
    try:
        writable(path, within=within)
        check_target(backup_of(path), within=within)
    except (LinkError, ReadOnlyError) as exc:
        raise InstallError(str(exc)) from None


def _load(seen: Seen, path: Path, shape: Shape) -> Document:
    return parse(seen.data, path, shape) if seen.data is not None else Document(b"")


def _left(data: bytes, path: Path, shape: Shape, keys: tuple[str, ...], had_hooks: bool) -> bytes:
    """What uninstall makes of ``data``."""
    doc = parse(data, path, shape)
    strip(doc, keys, shape)
    if not had_hooks:
        drop_empty_hooks(doc)
    return doc.encode()


def write_entries(
    path: Path,
    shape: Shape,
    keys: tuple[str, ...],
    added: Mapping[str, list[Any]],
    *,
    secret: bool,
    within: Path | None,
    first: Mapping[str, Any] | None = None,
) -> Found:
    """Replace the entries marked with ``keys`` by ``added``; ``secret``: the file holds the
    daemon's token (0600). ``first``: what the first install into the file found."""
    found: list[Found] = []

    def edit(seen: Seen) -> tuple[bytes, int] | None:
        doc = _load(seen, path, shape)
        had_entries = has_entries(doc, shape)
        had_hooks = doc.root is not None and doc.root.member("hooks") is not None
        if first is not None and isinstance(first.get("had_hooks"), bool):
            had_hooks = first["had_hooks"]
        strip(doc, keys, shape)
        base = doc.encode()
        if seen.data is not None and not had_entries:
            create_file(backup_of(path), seen.data, 0o600, within=within)  # kept if there
        try:
            merge(doc, added, shape)
        except InstallError as exc:
            raise InstallError(f"{path}: {exc}") from None
        new = doc.encode()
        after = _left(new, path, shape, keys, had_hooks)
        exact = seen.data is None or read_regular(backup_of(path)) == base
        found[:] = [Found(seen.data is None, had_hooks, seen.mode, _hash(after) if exact else None)]
        mode = seen.mode if seen.mode is not None else 0o644
        mode = mode & 0o600 if secret else mode
        return None if (new, mode) == (seen.data, seen.mode) else (new, mode)

    try:
        check_target(backup_of(path), within=within)
        make_folders(path.parent, within=within)
        update(path, edit, within=within)
    except (LinkError, ReadOnlyError) as exc:
        raise InstallError(str(exc)) from None
    return found[0]


def take_back(
    path: Path,
    shape: Shape,
    keys: tuple[str, ...],
    mine: Mapping[str, Any],
    *,
    within: Path | None,
) -> tuple[int, bool]:
    """Remove the entries marked with ``keys``, and what install added around them (see the
    module): how many handlers went, and whether any hookd entries are left in the file.
    ``mine``: what the install record says of the file."""
    removed, left, gone = [0], [False], list[bytes]()

    def edit(seen: Seen) -> tuple[bytes, int] | None:
        if seen.data is None:
            return None
        doc = parse(seen.data, path, shape)
        removed[0] = strip(doc, keys, shape)
        left[0] = has_entries(doc, shape)
        if not removed[0]:
            return None
        if mine.get("had_hooks") is False:
            drop_empty_hooks(doc)
        out = doc.encode()
        same = mine.get("restore") == _hash(out)
        if mine.get("created_file") is True and (
            same or (readable(doc) == dict(shape.skeleton) and not doc.has_comments)
        ):
            gone[:] = [seen.data]
            return None
        kept = read_regular(backup_of(path)) if same else None
        mode = mine.get("mode")
        mode = mode if isinstance(mode, int) and not left[0] else seen.mode
        return (kept if kept is not None else out), (mode if mode is not None else 0o600)

    try:
        update(path, edit, within=within)
        if gone:
            remove_if_unchanged(path, gone[0])
    except (LinkError, ReadOnlyError) as exc:
        raise InstallError(str(exc)) from None
    if removed[0] and not left[0]:
        backup_of(path).unlink(missing_ok=True)
    return removed[0], left[0]


def missing_dirs(folder: Path) -> list[Path]:
    """The folders above a file that do not exist yet, deepest first (install notes them)."""
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing


def drop_made_dirs(mine: Mapping[str, Any]) -> None:
    """Remove the folders install made for a file (``mine["made_dirs"]``, deepest first), as
    long as they are empty: one that is not is the user's now."""
    for folder in mine.get("made_dirs") or ():
        try:
            os.rmdir(folder)
        except OSError:
            break
