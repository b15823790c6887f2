"""What :func:`hookd.shell.parse` gives: the commands a line runs, and what it could not read.

Plain frozen dataclasses, no imports beyond the standard library: a rule written
against them needs nothing else of hookd.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import Final

__all__ = ["MAX_BYTES", "MAX_COMMANDS", "MAX_DEPTH", "PARSE_TIME_S", "Command", "Parse"]

#: A line longer than this (in UTF-8 bytes) is not parsed at all: a problem says so.
MAX_BYTES: Final = 1 << 20
#: How deep payloads nest (``bash -c "sh -c '...'"``, ``eval``, a heredoc fed to a shell).
MAX_DEPTH: Final = 8
#: At most this many commands are reported for one line (a problem says when there were more).
MAX_COMMANDS: Final = 2000
#: The CPU time to read one line, all payloads included (the grammar, then finding and expanding
#: its commands). A typical line takes some 50 us; a megabyte of heredoc some 25 ms; a
#: megabyte of short words would take over a second, and is cut here (a problem says so, and
#: the guard denies a line it could not read whole).
PARSE_TIME_S: Final = 0.025


@dataclass(frozen=True, slots=True)
class Command:
    """One simple command the line would run, after wrappers were peeled off it.

    ``argv`` holds each word after quote removal (``r"m"`` is ``rm``, ``$'\\x2f'`` is ``/``);
    a word that is not static (``$a``, ``"$(pwd)"/x``, ```b```) holds its source text and its
    index is in ``dynamic``: never guessed. ``via`` lists what it was reached through,
    outermost first (``sudo``, ``bash -c``, ``find -exec``, ``ssh``). ``code`` is an
    interpreter's program (``python -c CODE``, a heredoc fed to ``node``) and ``language``
    names it. ``repeated``: run once per item (a loop body, ``xargs``, ``find -exec``).
    ``remote``: it runs on another host (``ssh HOST CMD``). ``redirects`` are its ``(operator,
    target)`` pairs (``(">", "/dev/sda")``; a target that is not static is None). ``text`` is
    the command as written where it stands (inside its payload, for a payload's command).
    """

    argv: tuple[str, ...]
    dynamic: frozenset[int] = frozenset()
    via: tuple[str, ...] = ()
    code: str | None = None
    language: str | None = None
    repeated: bool = False
    remote: bool = False
    redirects: tuple[tuple[str, str | None], ...] = ()
    text: str = ""

    @property
    def name(self) -> str | None:
        """The program's base name (``/usr/bin/rm`` is ``rm``); None when argv[0] is not
        static or there is no argv."""
        if not self.argv or 0 in self.dynamic:
            return None
        return posixpath.basename(self.argv[0]) or self.argv[0]

    @property
    def args(self) -> tuple[str, ...]:
        """The words after the program's name."""
        return self.argv[1:]

    def is_static(self, index: int) -> bool:
        """Whether ``argv[index]`` is known before the line runs."""
        return index not in self.dynamic

    @property
    def unknown(self) -> bool:
        """What runs is not known: argv[0] is not static (``$cmd -rf /``, ``bash -c "$X"``)."""
        return not self.argv or 0 in self.dynamic

    def shown(self) -> str:
        """The command as written, on one line, shortened to 160 characters."""
        text = " ".join((self.text or " ".join(self.argv)).split())
        return text if len(text) <= 160 else text[:157] + "..."


@dataclass(frozen=True, slots=True)
class Parse:
    """Every command of one line, and the problems met reading it.

    A problem (``syntax error at 1:9``, ``bash -c: payloads nested deeper than 8``) means the
    line was not read as bash reads it: the commands listed are those that could be found.
    ``ok`` is True when there is none. ``cut`` is True when a bound stopped the reading (the
    line's size, the time budget, the payload depth, the number of commands): part of the
    line was not looked at at all.
    """

    text: str
    commands: tuple[Command, ...] = ()
    problems: tuple[str, ...] = field(default=())
    cut: bool = False

    @property
    def ok(self) -> bool:
        return not self.problems
