"""JSON, and JSON with comments, edited as text: what is not edited stays byte for byte.

Settings files belong to the user and to the programs that read them: their comments (Gemini
CLI and Qwen Code read ``settings.json`` with ``//`` and ``/* */`` comments), indentation, line
ends (CRLF), a UTF-8 byte order mark, key order, duplicate keys and numbers such as ``1e400``
(which no float holds: re-serialised it would become ``Infinity``, which Node cannot read)
would all be lost by parsing the file and dumping it again. A :class:`Document` parses the
text into a tree of spans (:class:`Node`, :class:`Entry`) and edits it by replacing the
characters of one entry: an entry appended after the last one, in the container's own layout
(one per line with its indentation, or inline, with its separators); an entry removed with its
comma and, when it stands on lines of its own, those lines. An append followed by the removal
of what it added gives back the text as it was.

No library on PyPI did this in Python alone (``jsonc-edit`` drives Microsoft's jsonc-parser
through Node.js, downloaded at first use; ``json-five``'s round-trip model is declared
unstable and re-lays what it dumps), so this is a small recursive-descent parser that knows
strings, comments and trailing commas. Standard library only.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Document", "Entry", "JsonTextError", "Node"]

#: Every token at once (the regex engine runs in C; a catch-all ``bad`` leaves no gap).
_TOKEN = re.compile(
    r"""(?P<ws>[ \t\r\n]+)
    |(?P<str>"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*")
    |(?P<punct>[{}\[\]:,])
    |(?P<num>-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)
    |(?P<lit>true|false|null)
    |(?P<line>//[^\n]*)
    |(?P<block>/\*.*?\*/)
    |(?P<bad>.)""",
    re.DOTALL | re.VERBOSE,
)
_LITERALS = {"true": True, "false": False, "null": None}
_SPACE = " \t\r\n"
_INDENTED = re.compile(r"^([ \t]+)[\"{\[]", re.MULTILINE)
MAX_DEPTH = 256
BOM = "\ufeff"


class JsonTextError(ValueError):
    """Text that is not JSON (or JSON with comments, where allowed): where and what."""


@dataclass(slots=True)
class Entry:
    """A member of an object (``key`` set) or an element of an array, and the comma after it."""

    key: str | None
    start: int  # the key's opening quote, or the element's first character
    value: Node
    comma: int | None = None  # the offset of the comma that follows it

    @property
    def end(self) -> int:
        return self.value.end


@dataclass(slots=True)
class Node:
    """A value's span in the text, its Python value, and (containers) its entries."""

    kind: str  # object, array, string, number, literal
    start: int
    end: int
    value: Any = None
    entries: list[Entry] = field(default_factory=list)

    def member(self, key: str) -> Node | None:
        """The value of ``key`` (the last one, as JSON.parse takes it), None when absent."""
        found = [e.value for e in self.entries if e.key == key]
        return found[-1] if found else None

    def index(self, key: str) -> int:
        return max(i for i, e in enumerate(self.entries) if e.key == key)


class _Parser:
    """Recursive descent over the significant tokens (strings, numbers, literals, punctuation);
    blanks and comments are skipped (comments only where allowed)."""

    def __init__(self, text: str, comments: bool) -> None:
        self.text, self.comments, self.found_comment = text, comments, False
        self.tokens: list[tuple[str, int, int]] = []
        self.at = 0
        for found in _TOKEN.finditer(text):
            kind = found.lastgroup or "bad"
            if kind == "ws":
                continue
            if kind in ("line", "block") and comments:
                self.found_comment = True
                continue
            if kind in ("line", "block", "bad"):
                self.tokens.append(("bad", found.start(), found.end()))
                break  # the error is raised when the parser reaches it
            self.tokens.append((kind, found.start(), found.end()))

    def fail(self, what: str, pos: int | None = None) -> JsonTextError:
        if pos is None:
            pos = self.tokens[self.at][1] if self.at < len(self.tokens) else len(self.text)
        line = self.text.count("\n", 0, pos) + 1
        column = pos - self.text.rfind("\n", 0, pos)
        return JsonTextError(f"{what}: line {line} column {column} (char {pos})")

    def peek(self, what: str) -> tuple[str, int, int]:
        if self.at >= len(self.tokens):
            raise self.fail(what)
        kind, start, end = self.tokens[self.at]
        if kind == "bad":
            raise self.fail(self._bad(start), start)
        return kind, start, end

    def _bad(self, pos: int) -> str:
        if self.text.startswith('"', pos):
            return "Invalid string"
        if self.text.startswith("/*", pos) and self.comments:
            return "Unterminated comment"
        return "Expecting value"

    def value(self, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise self.fail("Nested too deeply")
        kind, start, end = self.peek("Expecting value")
        self.at += 1
        text = self.text
        if kind == "punct" and text[start] in "{[":
            return self.container(start, text[start], depth)
        if kind == "str":
            raw = text[start:end]
            return Node("string", start, end, json.loads(raw) if "\\" in raw else raw[1:-1])
        if kind == "num":
            raw = text[start:end]
            plain = raw.lstrip("-").isdigit()
            return Node("number", start, end, int(raw) if plain else float(raw))
        if kind == "lit":
            return Node("literal", start, end, _LITERALS[text[start:end]])
        raise self.fail("Expecting value", start)

    def container(self, start: int, opening: str, depth: int) -> Node:
        closing, is_object = ("}", True) if opening == "{" else ("]", False)
        node = Node("object" if is_object else "array", start, start)
        wanted = True  # after the opening or a comma: an entry may come
        while True:
            kind, at, end = self.peek(f"Expecting ',' or '{closing}'")
            if kind == "punct" and self.text[at] == closing:
                if node.entries and wanted and not self.comments:
                    raise self.fail("Trailing comma", at)
                self.at += 1
                node.end = end
                break
            if not wanted:
                raise self.fail(f"Expecting ',' or '{closing}'", at)
            entry = self.entry(is_object, depth)
            node.entries.append(entry)
            kind, at, _ = self.peek(f"Expecting ',' or '{closing}'")
            wanted = kind == "punct" and self.text[at] == ","
            if wanted:
                entry.comma = at
                self.at += 1
        if is_object:
            node.value = {e.key: e.value.value for e in node.entries}
        else:
            node.value = [e.value.value for e in node.entries]
        return node

    def entry(self, is_object: bool, depth: int) -> Entry:
        if not is_object:
            return Entry(None, self.peek("Expecting value")[1], self.value(depth + 1))
        kind, start, _ = self.peek("Expecting property name enclosed in double quotes")
        if kind != "str":
            raise self.fail("Expecting property name enclosed in double quotes", start)
        key = self.value(depth + 1).value
        kind, at, _ = self.peek("Expecting ':' delimiter")
        if kind != "punct" or self.text[at] != ":":
            raise self.fail("Expecting ':' delimiter", at)
        self.at += 1
        return Entry(key, start, self.value(depth + 1))


class Document:
    """A JSON text (with comments when ``comments``), parsed, and edited in place."""

    def __init__(self, data: bytes, *, comments: bool = False) -> None:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JsonTextError(f"not UTF-8 (byte {exc.start})") from None
        self.bom = BOM if text.startswith(BOM) else ""
        self.text, self.comments = text[len(self.bom) :], comments
        self._root: Node | None = None
        self._comments = self._dirty = False
        self._parse()

    @property
    def root(self) -> Node | None:
        """The top value's tree (parsed again after an edit, when first asked for)."""
        if self._dirty:
            self._parse()
        return self._root

    @property
    def has_comments(self) -> bool:
        if self._dirty:
            self._parse()
        return self._comments

    def _parse(self) -> None:
        parser = _Parser(self.text, self.comments)
        self._root, self._dirty = None, False
        if parser.tokens:
            self._root = parser.value(0)
            if parser.at < len(parser.tokens):
                raise parser.fail("Extra data")
        self._comments = parser.found_comment

    @property
    def value(self) -> Any:
        return None if self.root is None else self.root.value

    def encode(self) -> bytes:
        return (self.bom + self.text).encode("utf-8")

    @property
    def newline(self) -> str:
        return "\r\n" if "\r\n" in self.text else "\n"

    # ------------------------------------------------------------------ edits

    def _splice(self, cuts: list[tuple[int, int, str]]) -> None:
        text = self.text
        for start, end, new in sorted(cuts, key=lambda cut: cut[0], reverse=True):  # stable
            text = text[:start] + new + text[end:]
        self.text, self._dirty = text, True

    def replace(self, *changes: tuple[Node, Any]) -> None:
        """Put each ``value`` (written compactly) where its ``node`` is."""
        self._splice([(n.start, n.end, json.dumps(v, ensure_ascii=False)) for n, v in changes])

    def set_root(self, value: Any) -> None:
        """An empty document gets ``value``, laid out two spaces an indent."""
        self.text, self._dirty = json.dumps(value, indent=2, ensure_ascii=False) + "\n", True

    def remove(self, container: Node, index: int) -> None:
        """Remove entry ``index`` of ``container`` with its comma (and its own lines)."""
        entries, text = container.entries, self.text
        entry = entries[index]
        tail = entry.comma + 1 if entry.comma is not None else entry.end
        if len(entries) == 1:
            inside = text[container.start + 1 : entry.start] + text[tail : container.end - 1]
            if not inside.strip(_SPACE):  # nothing else inside: `{}`
                self._splice([(container.start + 1, container.end - 1, "")])
                return
        before = entries[index - 1].comma if entry.comma is None and index > 0 else None
        if self._own_line(container, entry.start):
            cuts = [self._lines(entry.start, tail)]
            if before is not None:  # the comma before the last entry goes with it
                cuts.append((before, before + 1, ""))
        elif before is not None:  # `a, b` -> `a`
            cuts = [(before, entry.end, "")]
        else:  # `a, b` -> `b`
            end = tail
            while end < len(text) and text[end] in " \t":
                end += 1
            cuts = [(entry.start, end, "")]
        self._splice(cuts)

    def _own_line(self, container: Node, start: int) -> bool:
        line = self.text.rfind("\n", 0, start) + 1
        return line > container.start and not self.text[line:start].strip(" \t")

    def _lines(self, start: int, tail: int) -> tuple[int, int, str]:
        """The span of an entry standing on lines of its own: those lines, when nothing but
        blanks follows it on its last one; else just the entry."""
        text, end = self.text, tail
        while end < len(text) and text[end] in " \t":
            end += 1
        if text[end : end + 1] not in ("\n", "\r"):
            return start, tail, ""
        end += 2 if text.startswith("\r\n", end) else 1
        return text.rfind("\n", 0, start) + 1, end, ""

    def append(self, container: Node, value: Any, key: str | None = None) -> None:
        """Add ``value`` (as member ``key`` of an object) after the container's last entry."""
        text, nl = self.text, self.newline
        entries = container.entries
        sep, colon = self._separators(container)
        if not entries:
            multiline = container is self.root or "\n" in text.rstrip(_SPACE)
            inner = text[container.start + 1 : container.end - 1]
            if not multiline:
                body = self._entry(key, value, None, sep, colon)
                self._splice([(container.start + 1, container.end - 1, body)])
                return
            outer = self._indent_of(container.start)
            indent = outer + self._unit()
            body = nl + indent + self._entry(key, value, indent, sep, colon)
            if inner.strip(_SPACE):  # comments inside: after them
                at = container.start + 1 + len(inner.rstrip(_SPACE))
                self._splice([(at, at, body)])
            else:
                self._splice([(container.start + 1, container.end - 1, body + nl + outer)])
            return
        last = entries[-1]
        trailing = last.comma is not None
        at = last.comma + 1 if last.comma is not None else last.end
        if self._own_line(container, last.start):
            indent = self._indent_of(last.start)
            body = nl + indent + self._entry(key, value, indent, sep, colon)
            line_end = self._line_end(at)
            cuts = [(line_end, line_end, body + ("," if trailing else ""))]
            if not trailing:
                cuts.append((last.end, last.end, ","))
            self._splice(cuts)
            return
        body = self._entry(key, value, None, sep, colon)
        self._splice([(at, at, f" {body}," if trailing else f"{sep}{body}")])

    def _line_end(self, at: int) -> int:
        """Where a new line goes after ``at``: past comments that end on the same line."""
        end = self.text.find("\n", at)
        end = len(self.text) if end < 0 else end
        rest = self.text[at:end].strip(" \t\r")
        while rest.startswith("/*") and "*/" in rest:  # `"a": 1 /* note */`: the note stays
            rest = rest[rest.index("*/") + 2 :].lstrip(" \t\r")
        if rest and not rest.startswith("//"):
            return at
        return end - 1 if self.text[end - 1 : end] == "\r" else end

    def _entry(self, key: str | None, value: Any, indent: str | None, sep: str, colon: str) -> str:
        if indent is None:
            out = json.dumps(value, ensure_ascii=False, separators=(sep, colon))
        else:
            unit = self._unit()
            out = json.dumps(value, ensure_ascii=False, indent=unit, separators=(",", colon))
            out = out.replace("\n", self.newline + indent)
        return out if key is None else json.dumps(key, ensure_ascii=False) + colon + out

    def _indent_of(self, pos: int) -> str:
        line = self.text.rfind("\n", 0, pos) + 1
        rest = self.text[line:pos]
        return rest[: len(rest) - len(rest.lstrip(" \t"))]

    def _unit(self) -> str:
        """One level of indentation: the shortest that starts a line holding a value or key
        (two spaces when no line is indented)."""
        found = min(_INDENTED.findall(self.text), key=len, default="")
        return found or "  "

    def _separators(self, container: Node) -> tuple[str, str]:
        """The item separator (``", "`` or ``","``) and the colon (``": "``, ``":"``) in use."""
        sep, colon = ", ", ": "
        entries = container.entries
        if len(entries) > 1 and entries[0].comma is not None:
            sep = "," if entries[0].comma + 1 == entries[1].start else ", "
        keyed = [e for e in entries if e.key is not None] or self._members()
        if keyed:
            between = self.text[keyed[0].start : keyed[0].value.start]
            colon = ":" if between.endswith(":") else ": "
        return sep, colon

    def _members(self) -> list[Entry]:
        root = self.root
        return [e for e in root.entries if e.key is not None] if root is not None else []
