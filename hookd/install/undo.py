"""All or nothing: what an install may change, kept as it was, and put back when it fails.

``hookd install --agent gemini --agent qwen`` writes one file after the other; a failure on
Qwen's (a file that is not JSON, a disk error), or a daemon that cannot start afterwards (its
port held by another program), must not leave Gemini's file pointing at a daemon that never
answers (fail-closed entries block every tool call). Before anything is written, each file
the install may write (the settings files, their backups, git's exclude file, the install
record) is read; :meth:`Undo.undo` writes back each one that changed, removes each one that
was not there, and the folders made for them. A settings file that is a link keeps its link:
its target gets its bytes back.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from hookd.nofollow import read_regular, replace_file

__all__ = ["Undo"]


class Undo:
    """The files an install may write, as they were."""

    def __init__(self) -> None:
        self._files: dict[Path, tuple[bytes | None, int]] = {}
        self._folders: list[Path] = []
        self._shown: set[Path] = set()

    def keep(self, *paths: Path | None, shown: bool = False) -> None:
        """Remember ``paths`` as they are now (a link: its target), and the missing folders
        above them; ``shown``: named when put back (the user's files, not hookd's own)."""
        for path in paths:
            if path is None:
                continue
            real = Path(os.path.realpath(path)) if path.is_symlink() else path
            if real in self._files:
                continue
            try:
                data = read_regular(real)
                mode = stat.S_IMODE(real.stat().st_mode) if data is not None else 0o600
            except (OSError, ValueError):
                continue  # not a file hookd writes: it refuses it before writing anything
            self._files[real] = (data, mode)
            if shown:
                self._shown.add(real)
            folder = real.parent
            while not folder.exists() and folder != folder.parent:
                self._folders.append(folder)
                folder = folder.parent

    def undo(self) -> list[Path]:
        """Put every kept file back as it was; those of them to name that had changed."""
        changed = []
        for path, (data, mode) in self._files.items():
            try:
                now = read_regular(path)
            except OSError:
                continue
            if now == data:
                continue
            if path in self._shown:
                changed.append(path)
            try:
                if data is None:
                    path.unlink(missing_ok=True)
                else:
                    replace_file(path, data, mode)
            except OSError:
                continue
        for folder in sorted(set(self._folders), key=lambda f: len(f.parts), reverse=True):
            with contextlib.suppress(OSError):  # not empty: something else is in it now
                folder.rmdir()
        return changed
