"""Transcripts: a protocol session as JSON lines, and a tee that records one.

Each line is ``{"dir": "cli->hookd" | "hookd->cli", "t": seconds, "msg": ...}``;
a line that was not JSON is kept verbatim as ``"raw"`` instead of ``"msg"``.
Objects before the first line with ``"dir"`` form the header (see
``conformance/README.md``). :func:`tee_streams` wraps the two protocol streams of
a server and appends every line that crosses them to a transcript file.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

import msgspec
import structlog
import trio

from hookd.errors import HookdError

__all__ = [
    "FROM_HOOKD",
    "HEADERS_FILE",
    "RECORD_ENV",
    "TO_HOOKD",
    "Entry",
    "Header",
    "Transcript",
    "TranscriptError",
    "TranscriptWriter",
    "entry_line",
    "header_line",
    "hooks_reference",
    "is_file_spec",
    "load",
    "parse",
    "tee_from_env",
    "tee_or_warn",
    "tee_streams",
]

Direction = Literal["cli->hookd", "hookd->cli"]
Mode = Literal["host", "sidecar"]
TO_HOOKD: Final = "cli->hookd"
FROM_HOOKD: Final = "hookd->cli"
FORMAT_VERSION: Final = 1
#: ``hookd serve`` records its session to this file when the variable is set.
RECORD_ENV: Final = "HOOKD_RECORD"
#: Headers for the transcripts of a folder that carry none of their own.
HEADERS_FILE: Final = "headers.json"

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
    return Entry(direction, float(t), obj.get("msg"), raw, lineno)


_HEADER_KEYS: Final = frozenset(
    {"hookd_transcript", "mode", "hooks", "description", "requirements", "speed", "serve_args"}
)


def _header(head: dict[str, Any], source: str) -> Header:
    mode = head.get("mode")
    if mode not in (None, "host", "sidecar"):
        raise TranscriptError(f"{source}: header mode must be 'host' or 'sidecar'")
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


def entry_line(direction: Direction, t: float, line: bytes) -> bytes:
    """The transcript line for one protocol ``line`` (without its newline)."""
    try:
        obj: dict[str, Any] = {"dir": direction, "t": round(t, 3), "msg": _decoder.decode(line)}
    except msgspec.DecodeError:
        obj = {"dir": direction, "t": round(t, 3), "raw": line.decode("utf-8", "replace")}
    return _encoder.encode(obj) + b"\n"


# ------------------------------------------------------------------------ recording


class TranscriptWriter:
    """Appends entries to a file, flushed line by line so a crash keeps them."""

    def __init__(self, path: str | Path, header: dict[str, Any] | None = None) -> None:
        self.path = Path(path)
        try:
            self._file = self.path.open("wb")
        except OSError as exc:
            raise TranscriptError(f"cannot record to {path}: {exc.strerror or exc}") from None
        self._start = time.monotonic()
        self._file.write(header_line(**(header or {})))
        self._file.flush()
        self._open_streams = 2

    def write(self, direction: Direction, line: bytes) -> None:
        """Record one protocol line (without its newline)."""
        if self._file.closed:
            return
        self._file.write(entry_line(direction, time.monotonic() - self._start, line))
        self._file.flush()

    def release(self) -> None:
        """One of the two streams is done; the file closes after both."""
        self._open_streams -= 1
        if self._open_streams <= 0:
            self._file.close()


def tee_streams(
    receive: trio.abc.ReceiveStream,
    send: trio.abc.SendStream,
    path: str | Path,
    header: dict[str, Any] | None = None,
) -> tuple[trio.abc.ReceiveStream, trio.abc.SendStream]:
    """Wrap a server's streams so every line crossing them is appended to ``path``.

    What ``receive`` yields is recorded as ``cli->hookd``, what goes through
    ``send`` as ``hookd->cli``. The file starts with a header line made of
    ``header``; the protocol bytes pass through unchanged. Raises
    :class:`TranscriptError` when the file cannot be written.
    """
    from hookd.transcript.tee import TeeReceive, TeeSend

    writer = TranscriptWriter(path, header)
    return TeeReceive(receive, writer), TeeSend(send, writer)


def tee_from_env(
    receive: trio.abc.ReceiveStream,
    send: trio.abc.SendStream,
    *,
    hooks: str | None = None,
    serve_args: list[str] | None = None,
) -> tuple[trio.abc.ReceiveStream, trio.abc.SendStream]:
    """:func:`tee_streams` into ``$HOOKD_RECORD`` when it is set; else the streams as they are.

    ``{pid}`` in the path becomes the process id, so several servers started by
    one CLI write separate files. ``serve_args`` defaults to the arguments that
    follow ``serve`` on this process's command line, less ``hooks``. A file
    that cannot be written is logged as a warning, and the session is served
    unrecorded: a broken recording must not stop the hooks.
    """
    target = os.environ.get(RECORD_ENV)
    if not target:
        return receive, send
    path = Path(target.replace("{pid}", str(os.getpid())))
    if serve_args is None:
        serve_args = _serve_args_from_argv(hooks)
    header = {
        "mode": "sidecar",
        "hooks": hooks_reference(hooks, path.parent),
        "serve_args": serve_args or None,
        "description": f"recorded by hookd serve (pid {os.getpid()})",
    }
    return tee_or_warn(receive, send, path, header)


def tee_or_warn(
    receive: trio.abc.ReceiveStream,
    send: trio.abc.SendStream,
    path: Path,
    header: dict[str, Any],
) -> tuple[trio.abc.ReceiveStream, trio.abc.SendStream]:
    """:func:`tee_streams`, or the streams unrecorded with a warning if ``path`` is unwritable."""
    try:
        return tee_streams(receive, send, path, header)
    except TranscriptError as exc:
        structlog.get_logger("hookd.record").warning(
            "record.off", error=f"{exc}; serving without recording ({RECORD_ENV})"
        )
        return receive, send


def _serve_args_from_argv(hooks: str | None) -> list[str]:
    argv = sys.argv[1:]
    if "serve" not in argv:
        return []
    rest = argv[argv.index("serve") + 1 :]
    if hooks in rest:
        rest.remove(hooks)
    return rest


def hooks_reference(hooks: str | None, folder: Path) -> str | None:
    """A hooks spec as a header names it: a file relative to ``folder``, or the module name."""
    if hooks is None or not is_file_spec(hooks):
        return hooks
    target, folder = Path(hooks).resolve(), folder.resolve()
    if len(os.path.commonpath([target, folder])) <= len(target.anchor):
        return str(target)  # nothing in common but the root: keep it absolute
    return os.path.relpath(target, folder)
