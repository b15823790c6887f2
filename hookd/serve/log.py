"""structlog set-up: JSON lines (or a console format on a TTY), to stderr only.

The message is the ``msg`` key; pass ``_event=`` to log a hook event name as
``event``.

Log lines are collected in memory and written by :func:`flush`, which the
server calls after every batch of answers and on a short timer, so one log line
per request does not cost one system call per request.
"""

from __future__ import annotations

import logging
import os
import select
import threading
import time
from typing import Any, BinaryIO, Final, Literal

import msgspec
import structlog

__all__ = ["LogBuffer", "LogFormat", "configure", "flush"]

LogFormat = Literal["auto", "json", "console"]

#: Buffered log bytes past which a write flushes at once.
FLUSH_BYTES: Final = 256 * 1024

_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
}


class LogBuffer:
    """A write-only byte sink for structlog that defers the system call."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._data = bytearray()
        self._lock = threading.Lock()

    def write(self, data: bytes) -> int:
        with self._lock:
            self._data += data
            big = len(self._data) > FLUSH_BYTES
        if big:
            self.flush_now()
        return len(data)

    def write_line(self, line: msgspec.Struct) -> None:
        """Encode ``line`` as one JSON line straight into the buffer."""
        with self._lock:
            _line_encoder.encode_into(line, self._data, -1)
            self._data += b"\n"
            big = len(self._data) > FLUSH_BYTES
        if big:
            self.flush_now()

    def flush(self) -> None:
        """Called by structlog after each line: deferred (see flush_now)."""

    def flush_now(self) -> None:
        """Write every buffered line now (waiting while stderr is full)."""
        with self._lock:
            if not self._data:
                return
            data, self._data = self._data, bytearray()
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


_sink: LogBuffer | None = None
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


class _RequestLine(msgspec.Struct):
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
    *,
    event: str | None,
    method: str,
    outcome: str,
    elapsed_ms: float,
) -> None:
    """The one ``request.completed`` line per request, on the hot path.

    Encoded straight into the log buffer; in console format (or when info is
    filtered out) it defers to structlog.
    """
    if not _info_enabled:
        return
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


def flush() -> None:
    """Write out every buffered log line."""
    if _sink is not None:
        _sink.flush_now()


def _json_renderer() -> Any:
    encoder = msgspec.json.Encoder(enc_hook=repr)
    return structlog.processors.JSONRenderer(serializer=lambda obj, **_: encoder.encode(obj))


def _traceback_as_block(_logger: Any, _name: str, event: dict[str, Any]) -> dict[str, Any]:
    """On a terminal, a hook's traceback prints as lines under the log line, not as one string."""
    text = event.pop("traceback", None)
    if isinstance(text, str):
        event["exception"] = text
    return event


def configure(level: str = "info", fmt: LogFormat = "auto", *, fd: int = 2) -> None:
    """Send hookd's log to ``fd`` (stderr) at ``level`` in ``fmt``."""
    global _sink, _info_enabled
    flush()
    _info_enabled = _LEVELS[level] <= logging.INFO
    use_console = fmt == "console" or (fmt == "auto" and os.isatty(fd))
    processors: list[Any] = [
        structlog.processors.EventRenamer("msg", replace_by="_event"),
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.format_exc_info,
    ]
    if use_console:
        _sink = None
        processors.append(_traceback_as_block)
        stream: BinaryIO = os.fdopen(os.dup(fd), "w", buffering=1)  # type: ignore[assignment]
        processors.append(structlog.dev.ConsoleRenderer(colors=False))
        factory: Any = structlog.PrintLoggerFactory(stream)  # type: ignore[arg-type]
    else:
        _sink = LogBuffer(fd)
        processors.append(_json_renderer())
        factory = structlog.BytesLoggerFactory(_sink)  # type: ignore[arg-type]
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(_LEVELS[level]),
        logger_factory=factory,
        cache_logger_on_first_use=True,
    )
