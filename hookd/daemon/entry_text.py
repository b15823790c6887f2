"""hookd's entries in a settings or hook file, edited in the file's own text.

The file is the user's: only hookd's entries are added or removed (:mod:`hookd.jsontext`),
everything else keeps its bytes: comments, layout, line ends, a byte order mark, duplicate
keys, numbers no float holds. Three shapes: Claude Code's (Codex, Gemini CLI and Qwen Code use
it too), ``{"hooks": {EVENT: [{"matcher"?, "hooks": [HANDLER]}]}}``, Copilot CLI's flat
one, ``{"hooks": {EVENT: [HANDLER]}}`` with the command under ``bash``, and Droid's, whose
file is the event map itself, ``{EVENT: [{"matcher"?, "hooks": [HANDLER]}]}``. A handler is
hookd's when its URL or command carries the module's mark
(:func:`hookd.daemon.settings.is_ours`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hookd.daemon.settings import is_ours
from hookd.errors import HookdError
from hookd.jsontext import Document, JsonTextError, Node

__all__ = [
    "CLAUDE",
    "InstallError",
    "Shape",
    "drop_empty_hooks",
    "has_entries",
    "merge",
    "parse",
    "readable",
    "set_token",
    "strip",
]


class InstallError(HookdError, ValueError):
    """A settings file or module that cannot be installed; the message says why."""


@dataclass(frozen=True, slots=True)
class Shape:
    """How a file holds hooks: flat (Copilot CLI) or Claude Code's groups; under ``hooks`` or,
    ``root``, as the file's own keys (Droid's ``hooks.json``); with comments (Gemini CLI, Qwen
    Code and Droid read JSON with comments), and trailing commas unless ``commas`` is false
    (Droid ignores a whole file that has one); what a new file holds."""

    flat: bool = False
    comments: bool = False
    skeleton: Mapping[str, Any] = field(default_factory=dict)
    root: bool = False
    commas: bool = True


CLAUDE = Shape()


def parse(data: bytes, path: Path, shape: Shape) -> Document:
    """The file's text as a :class:`Document`; one line naming ``path`` when it is not JSON
    (with comments, for a shape that allows them) holding an object."""
    try:
        doc = Document(data, comments=shape.comments)
    except JsonTextError as exc:
        kind = "JSON with comments" if shape.comments else "JSON"
        raise InstallError(f"{path}: not valid {kind} ({exc}); fix it or move it away") from None
    if doc.root is not None and doc.root.kind != "object":
        raise InstallError(f"{path}: the settings file must hold a JSON object")
    if not shape.commas and doc.root is not None and _trailing_comma(doc.root):
        raise InstallError(
            f"{path}: a trailing comma, which makes the agent ignore the whole file; remove it"
        )
    return doc


def _trailing_comma(node: Node) -> bool:
    last = node.entries[-1] if node.entries else None
    if last is not None and last.comma is not None:
        return True
    return any(_trailing_comma(e.value) for e in node.entries)


def _ours(handler: Node, key: str | None, shape: Shape) -> bool:
    value = handler.value
    if shape.flat and isinstance(value, dict):
        value = {"type": value.get("type"), "command": value.get("bash")}
    return is_ours(value, key)


def _hooks(doc: Document, shape: Shape = CLAUDE) -> Node | None:
    if shape.root:
        return doc.root if doc.root is not None and doc.root.kind == "object" else None
    hooks = doc.root.member("hooks") if doc.root is not None else None
    return hooks if hooks is not None and hooks.kind == "object" else None


def _next(doc: Document, key: str | None, shape: Shape) -> tuple[Node, int] | None:
    """Where the next handler marked ``key`` (any mark: None) is, as the container and index
    of what goes with it: the handler, its group when it is the group's only one, the event
    when that is the event's only group."""
    hooks = _hooks(doc, shape)
    if hooks is None:
        return None
    for e, event in enumerate(hooks.entries):
        groups = event.value
        if groups.kind != "array":
            continue
        for g, group in enumerate(groups.entries):
            if shape.flat:
                handlers, at = groups, g
                if not _ours(group.value, key, shape):
                    continue
            else:
                inner = group.value.member("hooks") if group.value.kind == "object" else None
                if inner is None or inner.kind != "array":
                    continue
                found = [h for h, x in enumerate(inner.entries) if _ours(x.value, key, shape)]
                if not found:
                    continue
                handlers, at = inner, found[0]
                if len(inner.entries) == 1:
                    handlers, at = groups, g
            if handlers is groups and len(groups.entries) == 1:
                return hooks, e
            return handlers, at
    return None


def strip(doc: Document, keys: tuple[str | None, ...], shape: Shape) -> int:
    """Remove the handlers marked with each of ``keys`` (None: any module's); how many went.
    A group left without handlers goes too, and an event left without groups."""
    removed = 0
    for key in dict.fromkeys(keys):
        while (where := _next(doc, key, shape)) is not None:
            doc.remove(*where)
            removed += 1
    return removed


def has_entries(doc: Document, shape: Shape) -> bool:
    """Whether any hookd module's handler is in the file."""
    return _next(doc, None, shape) is not None


def merge(doc: Document, added: Mapping[str, list[Any]], shape: Shape) -> None:
    """Append ``added`` (by event) to the file's hooks; a clear error for a ``hooks`` that is
    not what the agent reads."""
    if doc.root is None:
        doc.set_root({**shape.skeleton, **(dict(added) if shape.root else {"hooks": dict(added)})})
        return
    if not shape.root and doc.root.member("hooks") is None:
        doc.append(doc.root, dict(added), "hooks")
        return
    if _hooks(doc, shape) is None:
        raise InstallError('"hooks" in the settings file is not an object')
    for event, items in added.items():
        for item in items:
            hooks = _hooks(doc, shape)
            assert hooks is not None
            current = hooks.member(event)
            if current is None:
                doc.append(hooks, [item], event)
            elif current.kind != "array":
                where = event if shape.root else f"hooks.{event}"
                raise InstallError(f'"{where}" in the settings file is not a list')
            else:
                doc.append(current, item)


def drop_empty_hooks(doc: Document) -> None:
    """Remove a ``hooks`` object left empty."""
    hooks = _hooks(doc)
    if doc.root is not None and hooks is not None and not hooks.entries:
        doc.remove(doc.root, doc.root.index("hooks"))


def _stale_headers(doc: Document, key: str, token: str) -> Iterator[Node]:
    hooks = _hooks(doc)
    for event in hooks.entries if hooks is not None else ():
        for group in event.value.entries if event.value.kind == "array" else ():
            inner = group.value.member("hooks") if group.value.kind == "object" else None
            for handler in inner.entries if inner is not None and inner.kind == "array" else ():
                value = handler.value
                if not is_ours(value.value, key) or value.value.get("type") != "http":
                    continue
                headers = value.member("headers")
                auth = headers.member("Authorization") if headers is not None else None
                if headers is None or headers.kind != "object" or auth is None:
                    continue
                current = auth.value
                if isinstance(current, str) and "$" not in current and current != f"Bearer {token}":
                    yield auth


def set_token(doc: Document, key: str, token: str) -> bool:
    """Put ``token`` in the module's literal-token http handlers; whether any changed (one
    that sends ``$HOOKD_TOKEN`` is the user's to change, and is left alone)."""
    stale = [(auth, f"Bearer {token}") for auth in _stale_headers(doc, key, token)]
    if stale:
        doc.replace(*stale)
    return bool(stale)


def readable(doc: Document) -> dict[str, Any]:
    """The file's value (an empty file: an empty object)."""
    value = doc.value
    return value if isinstance(value, dict) else {}
