"""Claude Code's matcher rules: which of an event's hooks a given input selects.

==============================  =============================================
matcher                         selects
==============================  =============================================
``None``, ``""``, ``"*"``       every input
only letters, digits, ``_``,    an exact name, or one of a list of exact
``-``, spaces, ``|`` and ``,``  names split on ``|`` or ``,`` (``Edit|Write``)
anything else                   a regular expression, searched unanchored
                                (``mcp__.*``, ``^Notebook``)
==============================  =============================================

Matching is case-sensitive. What is matched depends on the event (the tool
name for tool events, ``source`` for SessionStart, ``trigger`` for PreCompact,
...): ``matcher_field`` in :data:`hookd.events.EVENTS`. On an event without a
matcher field (Stop, UserPromptSubmit, ...) or not in the catalogue, the
matcher is ignored and every hook runs, as in Claude Code.
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Callable, Mapping
from typing import Any, Final

import msgspec

from hookd.errors import HookdError
from hookd.events.table import MATCHER_FIELD

__all__ = [
    "Matcher",
    "MatcherError",
    "compile_matcher",
    "matcher_field",
    "matcher_subject",
]

_MATCH_ALL: Final = frozenset({"", "*"})
_NAME_LIST: Final = re.compile(r"[A-Za-z0-9_\-|, ]+")
_SEPARATOR: Final = re.compile(r"[|,]")

#: Events whose matched value is reduced before matching (a file's base name).
_SUBJECT_OF: Final[Mapping[str, Callable[[str], str]]] = {
    "FileChanged": posixpath.basename,
}


class MatcherError(HookdError):
    """A matcher that is neither a name list nor a valid regular expression."""


class Matcher(msgspec.Struct, frozen=True):
    """A parsed matcher: match-all, a set of exact names, or a regex."""

    pattern: str | None
    names: frozenset[str] | None = None
    regex: re.Pattern[str] | None = None

    @property
    def kind(self) -> str:
        """``all``, ``names`` or ``regex``."""
        if self.names is not None:
            return "names"
        return "regex" if self.regex is not None else "all"

    def matches(self, value: str | None) -> bool:
        """Whether ``value`` is selected; ``None`` (no matcher field) always is."""
        if value is None:
            return True
        if self.names is not None:
            return value in self.names
        if self.regex is not None:
            return self.regex.search(value) is not None
        return True


@functools.lru_cache(maxsize=1024)
def compile_matcher(pattern: str | None) -> Matcher:
    """Parse ``pattern`` by Claude Code's rules; raise :class:`MatcherError` if invalid."""
    if pattern is None or pattern.strip() in _MATCH_ALL:
        return Matcher(pattern)
    if _NAME_LIST.fullmatch(pattern):
        names = frozenset(n.strip() for n in _SEPARATOR.split(pattern) if n.strip())
        return Matcher(pattern, names=names) if names else Matcher(pattern)
    try:
        return Matcher(pattern, regex=re.compile(pattern))
    except re.error as exc:
        raise MatcherError(
            f"matcher {pattern!r} is not a valid regular expression: {exc}"
        ) from None


def matcher_field(event: str) -> str | None:
    """The input field ``event``'s matcher is compared with; None if it has none."""
    return MATCHER_FIELD.get(event)


def matcher_subject(event: str, input_data: Mapping[str, Any]) -> str | None:
    """The value ``event``'s matchers are compared with, or None if it has no matcher.

    A missing or non-string field gives ``""``: only match-all matchers (and
    regexes that match the empty string) select it.
    """
    field = matcher_field(event)
    if field is None:
        return None
    value = input_data.get(field)
    text = value if isinstance(value, str) else ""
    reduce = _SUBJECT_OF.get(event)
    return reduce(text) if reduce is not None else text
