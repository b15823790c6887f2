"""Where a path word points: inside an allowed folder, at the system's or the user's roots, or
not known before the line runs.

Paths are compared as written, after ``~``, ``$HOME`` and the session's working folder are
applied and ``..`` folded: symbolic links are not followed (the guard reads a command, it does
not look at the disk).
"""

from __future__ import annotations

import os
import posixpath
import re
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Final

__all__ = ["EVERYTHING_HERE", "SYSTEM_TEMP", "Place", "Scope"]

#: Relative words that mean everything in the working folder.
EVERYTHING_HERE: Final = frozenset({".", "..", "*", "./*", "../*", ".*", "*.*", "./"})

#: The system's temporary folders: the default allowed paths.
SYSTEM_TEMP: Final = tuple(dict.fromkeys(["/tmp", "/var/tmp", tempfile.gettempdir()]))
#: Folders whose loss breaks the system or the account (and their immediate contents).
_SYSTEM: Final = frozenset(
    {
        *("/", "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/media"),
        *("/mnt", "/opt", "/proc", "/root", "/run", "/sbin", "/srv", "/sys", "/usr", "/var"),
        *("/Users", "/System", "/Library", "/Applications", "/private", "/usr/bin", "/usr/lib"),
        *("/usr/local", "/usr/sbin", "/usr/share", "/var/lib", "/var/log"),
    }
)
_HOME_WORDS: Final = re.compile(r"^(~|\$HOME\b|\$\{HOME\})")
_TEMP_WORDS: Final = re.compile(r"^\$\{?(TMPDIR|TMP|TEMP|RUNNER_TEMP)\b\}?")
_DYNAMIC_START: Final = re.compile(r"[$`]|\{item\}")


class Place(Enum):
    """Where a path points."""

    ALLOWED = "allowed"  # inside an allowed folder (a temporary one, by default)
    CRITICAL = "critical"  # /, the home folder, a system folder, or everything in one
    OTHER = "other"  # a known path elsewhere (the project, say)
    UNKNOWN = "unknown"  # not known before the line runs


@dataclass(frozen=True, slots=True)
class Scope:
    """The allowed folders and the session's folders that relative paths are read against."""

    allowed: tuple[str, ...]
    cwd: str | None = None
    home: str = ""

    @classmethod
    def make(cls, allowed: Iterable[str], cwd: str | None) -> Scope:
        home = os.path.expanduser("~")
        scope = cls((), cwd if cwd and cwd.startswith("/") else None, home)
        roots = [scope.absolute(os.path.expanduser(p)) for p in allowed]
        return cls(tuple(p for p in roots if p not in _SYSTEM and p != home), scope.cwd, home)

    def absolute(self, path: str) -> str:
        """``path`` with ``~`` applied, against the working folder, ``..`` folded."""
        if path == "~" or path.startswith("~/"):
            path = self.home + path[1:]
        if not path.startswith("/") and self.cwd:
            path = posixpath.join(self.cwd, path)
        return posixpath.normpath(path) if path else path

    def place(self, value: str, *, static: bool = True) -> Place:
        """Where the word points; ``static`` False: ``value`` is the word's source text."""
        if not static:
            return self._dynamic_place(value)
        if value.startswith("~") and value != "~" and not value.startswith("~/"):
            return Place.OTHER  # ~user, ~+: another account's or a stack folder
        path = self.absolute(value)
        if not path.startswith("/"):
            return Place.OTHER
        return self._absolute_place(path)

    def _absolute_place(self, path: str) -> Place:
        if self._holds_the_session(path):
            return Place.CRITICAL  # the home or working folder (or one above): never allowed
        if self._inside_allowed(path):
            return Place.ALLOWED
        if path in _SYSTEM or path == self.home:
            return Place.CRITICAL
        parent, base = posixpath.split(path)
        everything = "*" in base and base.strip("*.?") == ""
        if everything and (parent in _SYSTEM or parent == self.home):
            return Place.CRITICAL  # /*, ~/*, /etc/*
        return Place.OTHER

    def _holds_the_session(self, path: str) -> bool:
        """Whether ``path`` is the home folder or the working folder, or holds either: even in
        a temporary folder (a home or a project kept under /tmp), deleting it loses the work."""
        below = path.rstrip("/") + "/"
        return any(
            folder and (folder == path or folder.startswith(below))
            for folder in (self.home, self.cwd or "")
        )

    def _inside_allowed(self, path: str) -> bool:
        for root in (*self.allowed, *SYSTEM_TEMP):
            strict = root in SYSTEM_TEMP and root not in self.allowed
            if path.startswith(root.rstrip("/") + "/") or (not strict and path == root):
                return True
        return False

    def _dynamic_place(self, source: str) -> Place:
        text = source.replace('"', "").replace("'", "")
        if _TEMP_WORDS.match(text):
            return Place.ALLOWED
        home = _HOME_WORDS.match(text)
        if home:
            text = "~" + text[home.end() :]
        cut = _DYNAMIC_START.search(text)
        prefix = text[: cut.start()] if cut else text
        folder = prefix[: prefix.rfind("/") + 1] if "/" in prefix else ""
        if folder and self._inside_allowed(self.absolute(folder.rstrip("/") or "/") + "/"):
            return Place.ALLOWED
        if folder in ("/", "~/") and cut is not None and cut.start() == len(folder):
            return Place.CRITICAL  # /$x, ~/$x: anything at the top
        if home and prefix == "~":
            return Place.CRITICAL  # "$HOME" itself
        return Place.UNKNOWN
