"""Transcripts: a protocol session as JSON lines, and a tee that records one.

Each line is ``{"dir": "cli->hookd" | "hookd->cli", "t": seconds, "msg": ...}``;
a line that was not JSON is kept verbatim as ``"raw"`` instead of ``"msg"``.
Objects before the first line with ``"dir"`` form the header (see
``conformance/README.md``). :mod:`hookd.transcript.tee` writes them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

import msgspec

from hookd.errors import HookdError
from hookd.redact import redactor_for
from hookd.transcript import RECORD_ENV

__all__ = [
    "FROM_HOOKD",
    "HEADERS_FILE",
    "RECORD_ENV",
    "TO_HOOKD",
    "Entry",
    "Header",
    "Patterns",
    "Transcript",
    "TranscriptError",
    "entry_line",
    "header_line",
    "hooks_reference",
    "is_file_spec",
    "load",
    "no_patterns",
    "parse",
    "recording_header",
]

Direction = Literal["cli->hookd", "hookd->cli"]
Mode = Literal["host", "sidecar", "http"]
TO_HOOKD: Final = "cli->hookd"
FROM_HOOKD: Final = "hookd->cli"
FORMAT_VERSION: Final = 1
#: Headers for the transcripts of a folder that carry none of their own.
HEADERS_FILE: Final = "headers.json"

#: Where a recorder finds the served module's own redaction patterns (a reload changes them).
Patterns = Callable[[], Sequence[str]]


def no_patterns() -> Sequence[str]:
    """A recorder's patterns when no module is served: the built-in ones only."""
    return ()


#: Keys of a protocol message: a line with one of them and no ``dir`` is no transcript line.
_PROTOCOL_KEYS: Final = frozenset({"type", "jsonrpc", "request_id", "request", "response"})

_decoder: Final = msgspec.json.Decoder()
_encoder: Final = msgspec.json.Encoder()


class TranscriptError(HookdError):
    """A transcript file that cannot be read."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One protocol line: who wrote it, when, and what (``msg``, or ``raw`` text)."""

    dir: Direction
    t: float
    msg: Any = None
    raw: str | None = None
    lineno: int = 0
    http: dict[str, Any] | None = None  # http mode: method and target, or status
    conn: int | None = None  # http mode: the connection it crossed

    def wire_bytes(self, msg: Any = None) -> bytes:
        """The framed line to write (``msg`` overrides the recorded message)."""
        if self.raw is not None:
            return self.raw.encode() + b"\n"
        return _encoder.encode(self.msg if msg is None else msg) + b"\n"


@dataclass(frozen=True, slots=True)
class Header:
    """What a transcript says about itself; every field is optional."""

    mode: Mode | None = None
    hooks: str | None = None
    description: str = ""
    requirements: tuple[str, ...] = ()
    speed: float = 1.0
    serve_args: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Transcript:
    """A parsed transcript; ``path`` is where it was read from, if anywhere."""

    header: Header
    entries: list[Entry]
    path: Path | None = None

    def hooks_spec(self) -> str | None:
        """The header's hooks: a file relative to the transcript's folder, or a module name."""
        hooks = self.header.hooks
        if hooks is None or not is_file_spec(hooks):
            return hooks
        base = self.path.parent if self.path is not None else Path.cwd()
        return str(base / hooks)


def is_file_spec(hooks: str) -> bool:
    """Whether a hooks spec names a file (else an importable module)."""
    return hooks.endswith(".py") or "/" in hooks or os.sep in hooks


def load(path: str | Path) -> Transcript:
    """Read and parse the transcript at ``path``.

    A transcript kept byte for byte as recorded can take its header from
    ``headers.json`` in its folder: ``{"<file name>": {header fields}}``.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TranscriptError(f"{path}: cannot read: {exc}") from exc
    return parse(text.split("\n"), source=str(path), path=path, defaults=_side_header(path))


def _side_header(path: Path) -> dict[str, Any]:
    side = path.parent / HEADERS_FILE
    if not side.is_file():
        return {}
    try:
        headers = _decoder.decode(side.read_bytes())
    except (OSError, msgspec.DecodeError) as exc:
        raise TranscriptError(f"{side}: cannot read: {exc}") from None
    entry = headers.get(path.name, {}) if isinstance(headers, dict) else None
    if not isinstance(entry, dict):
        raise TranscriptError(f"{side}: expected {{file name: header object}}")
    return entry


def parse(
    lines: Iterable[str],
    *,
    source: str = "<transcript>",
    path: Path | None = None,
    defaults: dict[str, Any] | None = None,
) -> Transcript:
    """Parse transcript lines: header objects first (over ``defaults``), then entries."""
    head: dict[str, Any] = dict(defaults or {})
    entries: list[Entry] = []
    for lineno, text in enumerate(lines, 1):
        if not text.strip():
            continue
        obj = _decode_object(text, source, lineno)
        if "dir" not in obj and _PROTOCOL_KEYS & obj.keys():
            raise TranscriptError(
                f"{source}:{lineno}: a protocol message, not a transcript line "
                '(transcript lines are {"dir": ..., "t": ..., "msg": ...}; '
                "record one with `hookd record --out FILE -- hookd serve HOOKS`)"
            )
        if "dir" in obj:
            entries.append(_entry(obj, source, lineno))
        elif entries:
            raise TranscriptError(f"{source}:{lineno}: header line after the first message")
        else:
            head.update(obj)
    return Transcript(_header(head, source), entries, path)


def _decode_object(text: str, source: str, lineno: int) -> dict[str, Any]:
    try:
        obj = _decoder.decode(text)
    except msgspec.DecodeError as exc:
        raise TranscriptError(f"{source}:{lineno}: not JSON: {exc}") from None
    if not isinstance(obj, dict):
        raise TranscriptError(f"{source}:{lineno}: expected a JSON object")
    return obj


def _entry(obj: dict[str, Any], source: str, lineno: int) -> Entry:
    where = f"{source}:{lineno}"
    direction = obj["dir"]
    if direction not in (TO_HOOKD, FROM_HOOKD):
        raise TranscriptError(f"{where}: dir must be {TO_HOOKD!r} or {FROM_HOOKD!r}")
    t = obj.get("t", 0.0)
    if not isinstance(t, int | float) or isinstance(t, bool):
        raise TranscriptError(f"{where}: t must be a number of seconds")
    raw = obj.get("raw")
    if ("msg" in obj) == (raw is not None) or not isinstance(raw, str | None):
        raise TranscriptError(f"{where}: a line has either 'msg' or a 'raw' string")
    http, conn = obj.get("http"), obj.get("conn")
    if not isinstance(http, dict | None) or not isinstance(conn, int | None):
        raise TranscriptError(f"{where}: 'http' must be an object and 'conn' an integer")
    return Entry(direction, float(t), obj.get("msg"), raw, lineno, http, conn)


_HEADER_KEYS: Final = frozenset(
    {"hookd_transcript", "mode", "hooks", "description", "requirements", "speed", "serve_args"}
)


def _header(head: dict[str, Any], source: str) -> Header:
    mode = head.get("mode")
    if mode not in (None, "host", "sidecar", "http"):
        raise TranscriptError(f"{source}: header mode must be 'host', 'sidecar' or 'http'")
    version = head.get("hookd_transcript", FORMAT_VERSION)
    if version != FORMAT_VERSION:
        raise TranscriptError(f"{source}: unsupported transcript version {version!r}")
    try:
        return Header(
            mode=mode,
            hooks=_opt_str(head.get("hooks")),
            description=str(head.get("description", "")),
            requirements=tuple(str(r) for r in head.get("requirements", ())),
            speed=float(head.get("speed", 1.0)),
            serve_args=tuple(str(a) for a in head.get("serve_args", ())),
            extra={k: v for k, v in head.items() if k not in _HEADER_KEYS},
        )
    except (TypeError, ValueError) as exc:
        raise TranscriptError(f"{source}: bad header: {exc}") from None


def _opt_str(value: object) -> str | None:
    return None if value is None else str(value)


def header_line(**fields: Any) -> bytes:
    """A header line: ``{"hookd_transcript": 1, **fields}`` (None values left out)."""
    obj = {"hookd_transcript": FORMAT_VERSION, **{k: v for k, v in fields.items() if v is not None}}
    return _encoder.encode(obj) + b"\n"


def entry_line(direction: Direction, t: float, line: bytes, extra: Sequence[str] = ()) -> bytes:
    """The transcript line for one protocol ``line`` (without its newline), with what looks
    like a secret masked (:mod:`hookd.redact`: the built-in patterns and ``extra``, the served
    module's own)."""
    redactor = redactor_for(extra)
    try:
        msg = redactor.value(_decoder.decode(line))
        obj: dict[str, Any] = {"dir": direction, "t": round(t, 3), "msg": msg}
    except msgspec.DecodeError:
        raw = redactor.text(line.decode("utf-8", "replace"))
        obj = {"dir": direction, "t": round(t, 3), "raw": raw}
    return _encoder.encode(obj) + b"\n"


def hooks_reference(hooks: str | None, folder: Path) -> str | None:
    """A hooks spec as a header names it: a file relative to ``folder``, or the module name."""
    if hooks is None or not is_file_spec(hooks):
        return hooks
    target, folder = Path(hooks).resolve(), folder.resolve()
    if len(os.path.commonpath([target, folder])) <= len(target.anchor):
        return str(target)  # nothing in common but the root: keep it absolute
    return os.path.relpath(target, folder)


def recording_header(
    mode: Mode, description: str, hooks: str | None, serve_args: Sequence[str], folder: Path
) -> dict[str, Any]:
    """The header fields of a transcript being recorded into ``folder``."""
    return {
        "mode": mode,
        "hooks": hooks_reference(hooks, folder),
        "serve_args": list(serve_args) or None,
        "description": description,
    }
