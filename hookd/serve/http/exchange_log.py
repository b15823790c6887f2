"""Recording the hook exchanges of an HTTP server as a transcript (``HOOKD_RECORD``).

The transcript has an ``http`` header and one entry per request and per
answer, with the connection it crossed::

    {"dir": "cli->hookd", "t": 0.1, "conn": 1,
     "http": {"method": "POST", "target": "/hook/PreToolUse"}, "msg": {...}}
    {"dir": "hookd->cli", "t": 0.1, "conn": 1, "http": {"status": 200}, "msg": {...}}

Only requests that passed the gate are recorded, and never their headers: the
token stays out of the file. What looks like a secret is masked (:mod:`hookd.redact`:
the built-in patterns and the serving module's own ``redact`` list, as it is now).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, BinaryIO, Final

import msgspec
import structlog

from hookd.nofollow import open_for_writing
from hookd.redact import redactor_for
from hookd.serve.http.codec import Request
from hookd.transcript import record_target
from hookd.transcript.format import (
    FROM_HOOKD,
    RECORD_ENV,
    TO_HOOKD,
    Patterns,
    header_line,
    no_patterns,
    recording_header,
)

__all__ = ["HttpRecorder", "recorder_from_env"]

log = structlog.get_logger("hookd.http")

_decoder: Final = msgspec.json.Decoder()
_encoder: Final = msgspec.json.Encoder()


class HttpRecorder:
    """Appends HTTP exchanges to a transcript file, one flushed line each."""

    def __init__(
        self, path: str | Path, header: dict[str, Any], patterns: Patterns = no_patterns
    ) -> None:
        self.path = Path(path)
        self._patterns = patterns
        fd = open_for_writing(self.path)  # never through a link (LinkError, an OSError)
        self._file: BinaryIO = os.fdopen(fd, "wb")
        self._start = time.monotonic()
        self._file.write(header_line(**header))
        self._file.flush()

    def request(self, conn: int, request: Request) -> None:
        """Record a request that passed the gate (its method, target and body)."""
        http = {
            "method": request.head.method.decode("latin-1"),
            "target": request.head.target.decode("latin-1"),
        }
        self._write(TO_HOOKD, conn, http, request.body)

    def answer(self, conn: int, status: int, body: bytes) -> None:
        """Record the answer to the last request of ``conn``."""
        self._write(FROM_HOOKD, conn, {"status": status}, body)

    def _write(self, direction: str, conn: int, http: dict[str, Any], body: bytes) -> None:
        if self._file.closed:
            return
        obj: dict[str, Any] = {
            "dir": direction,
            "t": round(time.monotonic() - self._start, 3),
            "conn": conn,
            "http": http,
        }
        redactor = redactor_for(self._patterns())
        try:
            obj["msg"] = redactor.value(_decoder.decode(body))
        except msgspec.DecodeError:
            obj["raw"] = redactor.text(body.decode("utf-8", "replace"))
        self._file.write(_encoder.encode(obj) + b"\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


def recorder_from_env(
    hooks: str | None, serve_args: list[str], patterns: Patterns = no_patterns
) -> HttpRecorder | None:
    """A recorder into ``$HOOKD_RECORD`` (``{pid}`` replaced) when it is set, else None.

    A file that cannot be written is logged as a warning and the server runs
    unrecorded: a broken recording must not stop the hooks.
    """
    target = record_target()
    if not target:
        return None
    path = Path(target.replace("{pid}", str(os.getpid())))
    description = f"recorded by hookd serve --http (pid {os.getpid()})"
    header = recording_header("http", description, hooks, serve_args, path.parent)
    try:
        return HttpRecorder(path, header, patterns)
    except OSError as exc:
        log.warning("record.off", error=f"{exc}; serving without recording ({RECORD_ENV})")
        return None
