"""A word's value after quote removal, or None when it is not known before the line runs.

Static: plain words (backslashes removed), ``'single'``, ``"double"`` without expansions,
``$'ansi-c'``, and concatenations of those. Not static: ``$x``, ``${x}``, ``$(...)``,
backticks, ``$((...))``, ``<(...)`` (a path the shell makes up). Globs, ``~`` and braces are
kept as written: rules read them (``rm -rf *``, ``rm -rf ~``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["word_value"]

_DYNAMIC: Final = frozenset(
    {
        "simple_expansion",
        "expansion",
        "command_substitution",
        "process_substitution",
        "arithmetic_expansion",
    }
)
_PLAIN_ESCAPE: Final = re.compile(r"\\(\n|.)", re.S)
_DOUBLE_ESCAPE: Final = re.compile(r'\\([$`"\\\n])')
_ANSI: Final = re.compile(r"\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|.)")
_ANSI_NAMED: Final = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b",
                      "E": "\x1b", "f": "\f", "v": "\v"}  # fmt: skip


def word_value(node: Node) -> str | None:
    """The word's value, or None when it holds an expansion."""
    kind = node.type
    text = _text(node)
    if kind in _DYNAMIC:
        return None
    if kind == "raw_string":
        return text[1:-1]
    if kind in ("string", "translated_string"):
        if _holds_dynamic(node):
            return None
        inner = text[2:-1] if kind == "translated_string" else text[1:-1]
        return _DOUBLE_ESCAPE.sub(lambda m: "" if m[1] == "\n" else m[1], inner)
    if kind == "ansi_c_string":
        return _ANSI.sub(_ansi_char, text[2:-1])
    if kind == "concatenation":
        parts = [word_value(child) for child in node.children]
        if any(part is None for part in parts):
            return None
        return "".join(p for p in parts if p is not None)
    if _holds_dynamic(node):
        return None
    return _PLAIN_ESCAPE.sub(lambda m: "" if m[1] == "\n" else m[1], text)


def _holds_dynamic(node: Node) -> bool:
    stack = list(node.children)
    while stack:
        child = stack.pop()
        if child.type in _DYNAMIC:
            return True
        stack.extend(child.children)
    return False


def _ansi_char(match: re.Match[str]) -> str:
    escape = match[1]
    if escape[0] in "xuU" and len(escape) > 1:
        return chr(min(int(escape[1:], 16), 0x10FFFF))
    if escape[0] in "01234567":
        return chr(int(escape, 8))
    return _ANSI_NAMED.get(escape, escape)


def _text(node: Node) -> str:
    raw = node.text
    return raw.decode("utf-8", "replace") if raw is not None else ""
