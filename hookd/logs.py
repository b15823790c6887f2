"""structlog set-up: JSON lines (or a console format on a TTY), to stderr only.

The message is the ``msg`` key; pass ``_event=`` to log a hook event name as
``event``. Every line's values (a hook's traceback too) are redacted
(:mod:`hookd.redact`: the built-in patterns and, once :func:`redact_with` names
them, the served module's own); on a terminal their control characters are
escaped. The per-request ``request.completed`` line carries no input text.

No polling and no flush calls: while a trio loop runs with :func:`attach`, the
lines its own thread logs gather in memory; the first line of a burst wakes a
task that writes them all :data:`DRAIN_DELAY_S` later with one ``os.write``
(and the loop's end writes the rest), so a stream of requests costs one write
per 50 ms, not one per line, and an idle server never wakes for its log. A line
logged from any other thread, or with no loop attached, is written at once.
"""

from __future__ import annotations

import logging
import os
import select
import stat
import threading
import time
from collections.abc import Sequence
from typing import Any, BinaryIO, Final, Literal

import msgspec
import structlog
import trio

from hookd.redact import escape_controls, redactor_for

__all__ = ["LogFormat", "LogSink", "attach", "configure", "redact_with"]

LogFormat = Literal["auto", "json", "console"]

#: Gathered log bytes past which a line is written at once, without waiting for the loop.
FLUSH_BYTES: Final = 256 * 1024

_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
}


class LogSink:
    """A write-only byte sink for structlog: gathers the event loop's lines, writes the rest."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._data = bytearray()  # touched by the loop's thread only
        self.loop_thread: int | None = None  # the attached loop's thread, while it runs
        self.armed: trio.Event | None = None  # set when lines wait: the drain task wakes
        self.woken = False  # lines wait and the drain task was told (no Event call per line)
        self.max_file_bytes: int | None = None  # rotate the file behind ``fd`` past it
        self._room = 0  # bytes this sink may write before it looks at the file's size again

    def write(self, data: bytes) -> int:
        if threading.get_ident() != self.loop_thread:
            self._write_all(data)
            return len(data)
        self._data += data
        self._gathered()
        return len(data)

    def write_line(self, line: msgspec.Struct) -> None:
        """Encode ``line`` as one JSON line straight into the gathered bytes."""
        if threading.get_ident() != self.loop_thread:
            self._write_all(_line_encoder.encode(line) + b"\n")
            return
        data = self._data
        _line_encoder.encode_into(line, data, -1)
        data += b"\n"
        if len(data) > FLUSH_BYTES or not self.woken:  # else: the drain task is on its way
            self._gathered()

    def _gathered(self) -> None:
        """Lines wait: wake the drain task, or write them now past :data:`FLUSH_BYTES`."""
        if len(self._data) > FLUSH_BYTES:
            self.drain()
            return
        armed = self.armed
        if armed is not None and not self.woken:
            self.woken = True
            armed.set()

    def flush(self) -> None:
        """Called by structlog after each line: nothing to do (see :meth:`drain`)."""

    def drain(self) -> None:
        """Write the gathered lines (the loop's thread only)."""
        if self._data:
            data, self._data = self._data, bytearray()
            self._write_all(data)

    def _write_all(self, data: bytes | bytearray) -> None:
        """Write ``data`` in full, waiting while stderr is full."""
        view = memoryview(data)
        while view:
            try:
                written = os.write(self._fd, view)
            except BlockingIOError:  # stderr is full (non-blocking): wait until it drains
                select.select([], [self._fd], [])
                continue
            except OSError:
                return  # stderr gone: nothing left to tell
            view = view[written:]
        if self.max_file_bytes is not None:
            self._room -= len(data)
            if self._room <= 0:
                self._room = self._rotate_if_large(self.max_file_bytes)

    def _rotate_if_large(self, max_bytes: int) -> int:
        """Rotate the file past ``max_bytes`` (R-543); the bytes left before the next look."""
        rotated = rotate_if_large(max_bytes, self._fd)
        if rotated is not None:
            self._room = max_bytes
            line = {"previous": rotated, "msg": "log.rotated", "level": "info"}
            line["timestamp"] = _timestamp()
            self._write_all(_line_encoder.encode(line) + b"\n")
            return self._room
        try:
            return max(max_bytes - os.fstat(self._fd).st_size, 4096)
        except OSError:
            return max_bytes


class _Drain(trio.abc.Instrument):
    """Writes a sink's gathered lines before the loop waits, and when the loop ends."""

    def __init__(self, sink: LogSink) -> None:
        self.sink = sink

    def after_run(self) -> None:
        self.sink.drain()
        self.sink.loop_thread = None
        self.sink.armed = None
        self.sink.woken = False


#: How long the first line of a burst waits for the rest of it. One write per line cost
#: about 2 us of CPU per answer on one core at 1 in flight (10 % of an answer; `make bench`).
DRAIN_DELAY_S: Final = 0.05


async def _drain_later(sink: LogSink, armed: trio.Event) -> None:
    """Sleep until a line waits, then write the burst :data:`DRAIN_DELAY_S` later."""
    while True:
        await armed.wait()
        await trio.sleep(DRAIN_DELAY_S)
        armed = sink.armed = trio.Event()
        sink.woken = False
        sink.drain()


def rotate_at(max_bytes: int) -> None:
    """Move the file behind stderr to ``FILE.1`` once it grows past ``max_bytes``, looked at
    as hookd's own lines are written (no timer: an idle server never looks)."""
    if _sink is not None:
        _sink.max_file_bytes = max_bytes
        _sink._room = 0


def rotate_if_large(max_bytes: int, fd: int = 2) -> str | None:
    """Rotate ``fd``'s file (and stdout's, the same file) past ``max_bytes``: renamed to
    ``FILE.1``, replacing an older one, and a new file (0600) in its place; its new name."""
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size <= max_bytes:
            return None
        path = os.readlink(f"/proc/self/fd/{fd}")
        if not os.path.isabs(path) or os.stat(path).st_ino != info.st_ino:
            return None  # renamed or removed by someone else: leave it
        os.replace(path, path + ".1")
        new = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600)
    except OSError:
        return None
    if os.fstat(1).st_ino == info.st_ino:
        os.dup2(new, 1)
    os.dup2(new, fd)
    os.close(new)
    return path + ".1"


def attach() -> None:
    """Gather the running trio loop's log lines into one write per burst (call in the loop)."""
    if _sink is not None and _sink.loop_thread is None:
        _sink.loop_thread = threading.get_ident()
        _sink.armed = trio.Event()
        trio.lowlevel.add_instrument(_Drain(_sink))
        trio.lowlevel.spawn_system_task(_drain_later, _sink, _sink.armed)


_sink: LogSink | None = None
_info_enabled = True
_line_encoder = msgspec.json.Encoder()


_millis = -1
_millis_text = ""
_second = -1
_second_text = ""


def _timestamp() -> str:
    """ISO 8601 UTC like structlog's, to the millisecond.

    Made once per millisecond, from the date and time formatted once per second.
    """
    global _millis, _millis_text, _second, _second_text
    millis = time.time_ns() // 1_000_000
    if millis != _millis:
        second, rest = divmod(millis, 1000)
        if second != _second:
            _second, _second_text = second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        _millis, _millis_text = millis, f"{_second_text}.{rest:03d}Z"
    return _millis_text


class _RequestLine(msgspec.Struct, gc=False):
    """The canonical per-request line, in the order structlog would write it."""

    request_id: str | int | None
    callback_id: str | None
    method: str
    outcome: str
    elapsed_ms: float
    msg: str
    event: str | None
    level: str
    timestamp: str


def request_line(
    request_id: str | int | None,
    callback_id: str | None,
    event: str | None,
    method: str,
    outcome: str,
    *,
    elapsed_ms: float,
) -> None:
    """The one ``request.completed`` line per request, on the hot path (``elapsed_ms`` is
    written to the microsecond).

    Encoded straight into the log buffer; in console format (or when info is
    filtered out) it defers to structlog.
    """
    if not _info_enabled:
        return
    elapsed_ms = round(elapsed_ms * 1000) / 1000
    if _sink is None:
        structlog.get_logger("hookd").info(
            "request.completed",
            request_id=request_id,
            callback_id=callback_id,
            _event=event,
            method=method,
            outcome=outcome,
            elapsed_ms=elapsed_ms,
        )
        return
    line = _RequestLine(
        request_id,
        callback_id,
        method,
        outcome,
        elapsed_ms,
        "request.completed",
        event,
        "info",
        _timestamp(),
    )
    _sink.write_line(line)


def _json_renderer() -> Any:
    encoder = msgspec.json.Encoder(enc_hook=repr)
    return structlog.processors.JSONRenderer(serializer=lambda obj, **_: encoder.encode(obj))


#: The served module's own redaction patterns (its module-level ``redact`` list).
_patterns: tuple[str, ...] = ()


def redact_with(patterns: Sequence[str]) -> None:
    """Mask what the served module's own ``patterns`` match in every line from now on."""
    global _patterns
    _patterns = tuple(patterns)


def _redacted(_logger: Any, _name: str, event: dict[str, Any]) -> dict[str, Any]:
    """The line with what looks like a secret masked: in each value, a traceback's text
    included, and the whole value of a key named like a secret."""
    redacted: dict[str, Any] = redactor_for(_patterns).value(event)
    return redacted


def _escaped(_logger: Any, _name: str, event: dict[str, Any]) -> dict[str, Any]:
    """On a terminal: each text value as it may be printed (a traceback keeps its lines)."""
    for key, value in event.items():
        if isinstance(value, str):
            event[key] = escape_controls(value, multiline=key in ("exception", "traceback"))
    return event


def _traceback_as_block(_logger: Any, _name: str, event: dict[str, Any]) -> dict[str, Any]:
    """On a terminal, a hook's traceback prints as lines under the log line, not as one string."""
    text = event.pop("traceback", None)
    if isinstance(text, str):
        event["exception"] = text
    return event


def configure(level: str = "info", fmt: LogFormat = "auto", *, fd: int = 2) -> None:
    """Send hookd's log to ``fd`` (stderr) at ``level`` in ``fmt``."""
    global _sink, _info_enabled
    if _sink is not None:
        _sink.drain()
    _info_enabled = _LEVELS[level] <= logging.INFO
    use_console = fmt == "console" or (fmt == "auto" and os.isatty(fd))
    processors: list[Any] = [
        structlog.processors.EventRenamer("msg", replace_by="_event"),
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.format_exc_info,
        _redacted,
    ]
    if use_console:
        _sink = None
        processors += [_escaped, _traceback_as_block]
        stream: BinaryIO = os.fdopen(os.dup(fd), "w", buffering=1)  # type: ignore[assignment]
        processors.append(structlog.dev.ConsoleRenderer(colors=False))
        factory: Any = structlog.PrintLoggerFactory(stream)  # type: ignore[arg-type]
    else:
        _sink = LogSink(fd)
        processors.append(_json_renderer())
        factory = structlog.BytesLoggerFactory(_sink)  # type: ignore[arg-type]
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(_LEVELS[level]),
        logger_factory=factory,
        cache_logger_on_first_use=True,
    )
