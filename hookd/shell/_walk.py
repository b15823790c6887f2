"""Every simple command in a syntax tree, with its words, redirects and known stdin.

An explicit stack, not recursion: a tree nested ten thousand deep costs a list, not Python's
stack. Each command keeps what its stdin is when the line says so: a heredoc, a here-string,
or ``echo``/``printf``/``cat`` text piped into it (what a shell or an interpreter reads).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from hookd.shell._words import word_value

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["PIPED", "Raw", "raw_commands"]

#: The stdin of a command fed by a pipe whose text is not known.
PIPED: Final = "\0piped"
#: At most this many tree nodes are visited for one parse.
MAX_NODES: Final = 400_000

_LOOPS: Final = frozenset({"for_statement", "c_style_for_statement", "while_statement"})
_REDIRECTS: Final = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_TEXT_SOURCES: Final = frozenset({"echo", "printf", "cat"})


@dataclass(slots=True)
class Raw:
    """A simple command as written: ``words`` are ``(value or None, source)`` pairs."""

    words: list[tuple[str | None, str]]
    text: str
    redirects: list[tuple[str, str | None]] = field(default_factory=list)
    stdin: str | None = None
    repeated: bool = False


def raw_commands(root: Node, spent: Callable[[], bool]) -> tuple[list[Raw], bool]:
    """The tree's simple commands in source order, and whether a bound cut it short (the node
    count, or ``spent()``, asked every 256 nodes)."""
    fed: dict[int, str] = {}
    extra: dict[int, list[Node]] = {}
    found: list[Raw] = []
    stack: list[tuple[Node, bool]] = [(root, False)]
    visited = 0
    while stack:
        node, repeated = stack.pop()
        visited += 1
        if visited > MAX_NODES or (not visited & 255 and spent()):
            return found, True
        kind = node.type
        if kind == "command":
            found.append(_raw(node, fed, extra.get(node.id, []), repeated))
        elif kind == "pipeline":
            _feed_stages(_stages(node), fed)
        elif kind == "redirected_statement":
            _redirected(node, fed, extra)
        inner = repeated or kind in _LOOPS
        stack.extend((child, inner) for child in reversed(node.children))
    return found, False


def _raw(node: Node, fed: dict[int, str], outer: list[Node], repeated: bool) -> Raw:
    words: list[tuple[str | None, str]] = []
    redirects: list[tuple[str, str | None]] = []
    stdin = fed.get(node.id)
    for index, child in enumerate(node.children):
        field_name = node.field_name_for_child(index)
        if field_name == "name":
            target = child.children[0] if child.children else child
            words.append((word_value(target), _text(target)))
        elif field_name == "argument":
            words.append((word_value(child), _text(child)))
        elif child.type in _REDIRECTS:
            stdin = _redirect(child, redirects, stdin)
    for child in outer:
        stdin = _redirect(child, redirects, stdin)
    return Raw(words, _text(node), redirects, stdin, repeated)


def _redirect(node: Node, redirects: list[tuple[str, str | None]], stdin: str | None) -> str | None:
    """Record a redirect; give the command's stdin after it."""
    if node.type == "heredoc_redirect":
        body = next((c for c in node.children if c.type == "heredoc_body"), None)
        return _text(body) if body is not None else stdin
    if node.type == "herestring_redirect":
        word = next((c for c in node.children if c.is_named), None)
        value = word_value(word) if word is not None else None
        return PIPED if value is None else value + "\n"
    operator = next((c.type for c in node.children if not c.is_named), "")
    target = node.child_by_field_name("destination")
    redirects.append((operator, word_value(target) if target is not None else None))
    return stdin


def _redirected(node: Node, fed: dict[int, str], extra: dict[int, list[Node]]) -> None:
    """Give the body command the statement's redirects; feed a pipeline hidden in a heredoc."""
    body = node.child_by_field_name("body")
    redirects = [c for c in node.children if c.type in _REDIRECTS]
    if body is not None and body.type == "command":
        extra.setdefault(body.id, []).extend(redirects)
    for redirect in redirects:
        for child in redirect.children:
            if child.type == "pipeline":  # `cat <<EOF | sh`: the grammar nests the rest here
                _feed_stages([node, *_stages(child)], fed)


def _stages(pipeline: Node) -> list[Node]:
    return [c for c in pipeline.children if c.is_named and c.type != "comment"]


def _feed_stages(stages: list[Node], fed: dict[int, str]) -> None:
    for before, after in itertools.pairwise(stages):
        command = _command_of(after)
        if command is not None:
            fed[command.id] = _output(before, fed)


def _command_of(stage: Node) -> Node | None:
    if stage.type == "command":
        return stage
    if stage.type == "redirected_statement":
        body = stage.child_by_field_name("body")
        return body if body is not None and body.type == "command" else None
    return None


def _output(stage: Node, fed: dict[int, str]) -> str:
    """What a pipeline stage writes when the line says so (echo, printf, cat), else PIPED."""
    command = _command_of(stage)
    if command is None:
        return PIPED
    raw = _raw(command, fed, [c for c in stage.children if c.type in _REDIRECTS], False)
    values = [value for value, _ in raw.words]
    if not values or any(v is None for v in values) or values[0] not in _TEXT_SOURCES:
        return PIPED
    args = [v for v in values[1:] if v is not None]
    if values[0] == "echo":
        return " ".join(a for a in args if a not in ("-n", "-e", "-E")) + "\n"
    if values[0] == "printf":
        return _printf(args)
    if args:  # cat FILE: not known
        return PIPED
    return raw.stdin if raw.stdin is not None else PIPED


def _printf(args: list[str]) -> str:
    if not args:
        return PIPED
    fmt, rest = args[0], args[1:]
    text = fmt.replace("\\n", "\n").replace("\\t", "\t")
    if "%" not in text:
        return text
    if text.strip() in ("%s", "%s\n", "%b", "%b\n"):
        return "".join(a + ("\n" if text.endswith("\n") else "") for a in rest)
    return PIPED


def _text(node: Node) -> str:
    raw = node.text
    return raw.decode("utf-8", "replace") if raw is not None else ""
