"""What ``input()`` inside a callback reads: the user's terminal in ``hookd run``, never the
protocol's stdin; where no user can be asked, an ``EOFError`` that says why.

hookd's own fd 0 points at /dev/null once the protocol is set up (see
:func:`hookd.serve.service.protocol_stdio`); this replaces ``sys.stdin``, which
``input()`` and ``sys.stdin.readline()`` read.
"""

from __future__ import annotations

import io
import sys
from typing import Final, TextIO

__all__ = ["NO_TERMINAL_RUN", "NO_USER_SERVE", "Unanswerable", "ask_user_on_terminal", "no_user"]

TERMINAL: Final = "/dev/tty"
NO_USER_SERVE: Final = (
    "input() in a hook: hookd serve has no user to ask (the CLI owns the terminal and stdin "
    "carries the protocol); decide without asking, or run the CLI under `hookd run` in a terminal"
)
NO_TERMINAL_RUN: Final = (
    "input() in a hook: hookd run has no terminal to ask the user on ({reason}); run it in a "
    "terminal, or decide without asking"
)


class Unanswerable(io.TextIOBase):
    """A stdin that no one can type into: every read raises ``EOFError(message)``."""

    def __init__(self, message: str) -> None:
        super().__init__()
        self.message = message

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> str:
        raise EOFError(self.message)

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        raise EOFError(self.message)


def no_user(message: str = NO_USER_SERVE) -> None:
    """Make ``input()`` fail at once with ``message``."""
    sys.stdin = Unanswerable(message)


def ask_user_on_terminal() -> io.TextIOBase | TextIO:
    """Point ``sys.stdin`` at the controlling terminal, or at a clear refusal without one."""
    try:
        terminal: TextIO = open(TERMINAL, encoding="utf-8", errors="replace")  # noqa: SIM115
    except OSError as exc:
        refusal = Unanswerable(NO_TERMINAL_RUN.format(reason=exc.strerror or exc))
        sys.stdin = refusal
        return refusal
    sys.stdin = terminal
    return terminal
