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
import sys
import threading
import time
from typing import Any, BinaryIO, Literal

import msgspec
import structlog

__all__ = ["LogFormat", "configure", "flush"]

LogFormat = Literal["auto", "json", "console"]

_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
}


class _Buffer:
    """A write-only byte sink for structlog that defers the system call."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._chunks: list[bytes] = []
        self._size = 0
        self._lock = threading.Lock()

    def write(self, data: bytes) -> int:
        with self._lock:
            self._chunks.append(data)
            self._size += len(data)
            big = self._size > 256 * 1024
        if big:
            self.flush_now()
        return len(data)

    def flush(self) -> None:
        """Called by structlog after each line: deferred (see flush_now)."""

    def flush_now(self) -> None:
        with self._lock:
            data, self._chunks, self._size = b"".join(self._chunks), [], 0
        view = memoryview(data)
        while view:
            try:
                written = os.write(self._fd, view)
            except BlockingIOError:
                continue
            except OSError:
                return  # stderr gone: nothing left to tell
            view = view[written:]


_sink: _Buffer | None = None
_info_enabled = True
_line_encoder = msgspec.json.Encoder(enc_hook=repr)


_second = -1
_second_text = ""


def _timestamp() -> str:
    """ISO 8601 UTC with microseconds, like structlog's, without a datetime per call."""
    global _second, _second_text
    now = time.time()
    second = int(now)
    if second != _second:
        _second, _second_text = second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
    return f"{_second_text}.{int((now - second) * 1_000_000):06d}Z"


def info_line(msg: str, fields: dict[str, Any]) -> None:
    """One info line on the hot path: the same JSON line structlog would write, faster.

    Used for the one canonical line per request. In console format (or when
    info is filtered out) it defers to structlog.
    """
    if not _info_enabled:
        return
    if _sink is None:
        structlog.get_logger("hookd").info(msg, **fields)
        return
    event = fields.pop("_event", None)
    fields["msg"] = msg
    if event is not None:
        fields["event"] = event
    fields["level"] = "info"
    fields["timestamp"] = _timestamp()
    _sink.write(_line_encoder.encode(fields) + b"\n")


def flush() -> None:
    """Write out every buffered log line."""
    if _sink is not None:
        _sink.flush_now()


def _json_renderer() -> Any:
    encoder = msgspec.json.Encoder(enc_hook=repr)
    return structlog.processors.JSONRenderer(serializer=lambda obj, **_: encoder.encode(obj))


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
        stream: BinaryIO = os.fdopen(os.dup(fd), "w", buffering=1)  # type: ignore[assignment]
        processors.append(structlog.dev.ConsoleRenderer(colors=False))
        factory: Any = structlog.PrintLoggerFactory(stream)  # type: ignore[arg-type]
    else:
        _sink = _Buffer(fd)
        processors.append(_json_renderer())
        factory = structlog.BytesLoggerFactory(_sink)  # type: ignore[arg-type]
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(_LEVELS[level]),
        logger_factory=factory,
        cache_logger_on_first_use=True,
    )


def default_stream_is_tty() -> bool:
    """Whether stderr is a terminal (console format by default)."""
    return sys.stderr.isatty()
