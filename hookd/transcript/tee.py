"""Recording: stream wrappers that pass protocol bytes through and append each line to a file."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import structlog
import trio

from hookd import wire
from hookd.nofollow import LinkError, open_for_writing
from hookd.transcript import record_target
from hookd.transcript.format import (
    FROM_HOOKD,
    RECORD_ENV,
    TO_HOOKD,
    Direction,
    Mode,
    Patterns,
    TranscriptError,
    entry_line,
    header_line,
    no_patterns,
    recording_header,
)

__all__ = ["TeeReceive", "TeeSend", "TranscriptWriter", "tee_from_env", "tee_streams"]

log = structlog.get_logger("hookd.record")

#: The recorder keeps every line whole, whatever its size.
_NO_LIMIT = sys.maxsize


class TranscriptWriter:
    """Appends entries to a file, flushed line by line so a crash keeps them."""

    def __init__(
        self,
        path: str | Path,
        header: dict[str, Any] | None = None,
        patterns: Patterns = no_patterns,
    ) -> None:
        self.path = Path(path)
        self._patterns = patterns  # the served module's own redaction patterns
        try:
            self._file = os.fdopen(open_for_writing(self.path, 0o666), "wb")  # never via a link
        except LinkError as exc:  # it names the path itself
            raise TranscriptError(f"cannot record: {exc}") from None
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
        t = time.monotonic() - self._start
        self._file.write(entry_line(direction, t, line, self._patterns()))
        self._file.flush()

    def release(self) -> None:
        """One of the two streams is done; the file closes after both."""
        self._open_streams -= 1
        if self._open_streams <= 0:
            self._file.close()


def _lines(framer: wire.LineFramer, data: bytes) -> list[bytes]:
    return [line for line in framer.feed(data) if isinstance(line, bytes)]


class TeeReceive(trio.abc.ReceiveStream):
    """What the peer sends, recorded as ``cli->hookd``."""

    def __init__(self, inner: trio.abc.ReceiveStream, writer: TranscriptWriter) -> None:
        self._inner, self._writer, self._framer = (
            inner,
            writer,
            wire.LineFramer(_NO_LIMIT, strip=False),
        )
        self._done = False

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        data = bytes(await self._inner.receive_some(max_bytes))
        for line in _lines(self._framer, data):
            self._writer.write(TO_HOOKD, line)
        if not data:
            self._finish()
        return data

    def _finish(self) -> None:
        if not self._done:
            self._done = True
            tail = self._framer.close()
            if isinstance(tail, bytes):
                self._writer.write(TO_HOOKD, tail)
            self._writer.release()

    async def aclose(self) -> None:
        self._finish()
        await self._inner.aclose()


class TeeSend(trio.abc.SendStream):
    """What hookd answers, recorded as ``hookd->cli``."""

    def __init__(self, inner: trio.abc.SendStream, writer: TranscriptWriter) -> None:
        self._inner, self._writer, self._framer = (
            inner,
            writer,
            wire.LineFramer(_NO_LIMIT, strip=False),
        )
        self._done = False

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self._inner.send_all(data)
        for line in _lines(self._framer, bytes(data)):
            self._writer.write(FROM_HOOKD, line)

    async def wait_send_all_might_not_block(self) -> None:
        await self._inner.wait_send_all_might_not_block()

    async def aclose(self) -> None:
        if not self._done:
            self._done = True
            self._writer.release()
        await self._inner.aclose()


def tee_streams(
    receive: trio.abc.ReceiveStream,
    send: trio.abc.SendStream,
    path: str | Path,
    header: dict[str, Any] | None = None,
    patterns: Patterns = no_patterns,
) -> tuple[trio.abc.ReceiveStream, trio.abc.SendStream]:
    """Wrap a server's streams so every line crossing them is appended to ``path``.

    What ``receive`` yields is recorded as ``cli->hookd``, what goes through
    ``send`` as ``hookd->cli``. The file starts with a header line made of
    ``header``; the protocol bytes pass through unchanged, the recorded lines
    redacted (the built-in patterns and ``patterns()``, the served module's own).
    Raises :class:`TranscriptError` when the file cannot be written.
    """
    writer = TranscriptWriter(path, header, patterns)
    return TeeReceive(receive, writer), TeeSend(send, writer)


def tee_from_env(
    receive: trio.abc.ReceiveStream,
    send: trio.abc.SendStream,
    *,
    hooks: str | None = None,
    serve_args: Sequence[str] | None = None,
    mode: Mode = "sidecar",
    patterns: Patterns = no_patterns,
) -> tuple[trio.abc.ReceiveStream, trio.abc.SendStream]:
    """:func:`tee_streams` into ``$HOOKD_RECORD`` when it is set; else the streams as they are.

    ``{pid}`` in the path becomes the process id, so several servers started by
    one CLI write separate files. ``serve_args`` defaults to the arguments that
    follow ``serve`` on this process's command line, less ``hooks``. A file
    that cannot be written is logged as a warning, and the session is served
    unrecorded: a broken recording must not stop the hooks.
    """
    target = record_target()
    if not target:
        return receive, send
    path = Path(target.replace("{pid}", str(os.getpid())))
    if serve_args is None:
        serve_args = _serve_args_from_argv(hooks)
    command = "hookd run" if mode == "host" else "hookd serve"
    description = f"recorded by {command} (pid {os.getpid()})"
    header = recording_header(mode, description, hooks, serve_args, path.parent)
    try:
        return tee_streams(receive, send, path, header, patterns)
    except TranscriptError as exc:
        log.warning("record.off", error=f"{exc}; serving without recording ({RECORD_ENV})")
        return receive, send


def _serve_args_from_argv(hooks: str | None) -> list[str]:
    argv = sys.argv[1:]
    if "serve" not in argv:
        return []
    rest = argv[argv.index("serve") + 1 :]
    if hooks in rest:
        rest.remove(hooks)
    return rest
