"""The wording error messages share: JSON type names, and the path msgspec appends to its
validation errors."""

from __future__ import annotations

import re
from typing import Any, Final, NamedTuple

__all__ = ["MsgspecProblem", "json_type", "msgspec_problem"]


def json_type(value: Any, *, integers: bool = True) -> str:
    """The JSON type name of a decoded value (``integers=False``: "number" for every number)."""
    match value:
        case None:
            return "null"
        case bool():
            return "boolean"
        case int():
            return "integer" if integers else "number"
        case float():
            return "number"
        case str():
            return "string"
        case list() | tuple():
            return "array"
        case dict():
            return "object"
        case _:
            return type(value).__name__


class MsgspecProblem(NamedTuple):
    """A msgspec validation message taken apart."""

    what: str  #: the message without its location
    path: str  #: where, as msgspec writes it after ``$`` (``.a.b``, ``[0]``), or ""
    key: bool  #: the problem is with a mapping's key at ``path``


_MSGSPEC_AT: Final = re.compile(
    r"(?P<what>.*?)(?: - at (?P<key>`key` in )?`\$(?P<path>[^`]*)`)?", re.DOTALL
)


def msgspec_problem(message: str) -> MsgspecProblem:
    """Split msgspec's ``Expected `str`, got `int` - at `$.a.b``` into its parts."""
    match = _MSGSPEC_AT.fullmatch(message)
    assert match is not None  # the pattern matches any text
    return MsgspecProblem(match["what"], match["path"] or "", bool(match["key"]))
