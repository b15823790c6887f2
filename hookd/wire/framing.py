"""Line framing: a byte stream into lines, with a cap on their length."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from hookd.wire.decode import UNREADABLE, any_decoder
from hookd.wire.messages import Framing, Oversize, RequestId

__all__ = ["DEFAULT_MAX_LINE_BYTES", "READ_SIZE", "LineFramer", "recover_id"]

#: The longest line read by default.
DEFAULT_MAX_LINE_BYTES: Final = 64 * 1024 * 1024
#: How much one read of a stream asks for. Under glibc's 128 KiB mmap threshold: a larger
#: buffer is mapped, shrunk and unmapped again on every read (three system calls and a
#: page fault per request at 1 in flight).
READ_SIZE: Final = 64 * 1024

_ID_IN_HEAD: Final = re.compile(rb'"(request_id|id)"\s*:\s*("(?:[^"\\]|\\.){1,256}"|-?\d{1,18})')


def recover_id(head: bytes) -> tuple[Framing, RequestId] | None:
    """Best effort: the request id named near the start of a discarded line."""
    match = _ID_IN_HEAD.search(head)
    if match is None:
        return None
    framing: Framing = "control" if match.group(1) == b"request_id" else "jsonrpc"
    try:
        value = any_decoder.decode(match.group(2))
    except UNREADABLE:
        return None
    if framing == "control" and not isinstance(value, str):
        return None
    return framing, value


class LineFramer:
    """Splits a byte stream on ``\\n``; tolerates ``\\r\\n`` and blank lines.

    A line longer than ``max_line_bytes`` is discarded as it streams in (memory
    stays bounded) and reported once as an :class:`Oversize` with its first
    bytes, so its request can still be answered. With ``strip=False`` lines
    keep their surrounding whitespace (blank lines are still skipped).
    """

    HEAD_BYTES: Final = 4096

    def __init__(self, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES, *, strip: bool = True) -> None:
        if max_line_bytes < 1:
            raise ValueError("max_line_bytes must be positive")
        self.max_line_bytes = max_line_bytes
        self._strip = strip
        self._buf = bytearray()
        self._skipping = 0  # bytes of an oversize line discarded so far
        self._head = b""

    def feed(self, data: bytes) -> list[bytes | Oversize]:
        """The complete lines (stripped, non-blank) that ``data`` finishes."""
        if self._skipping or not self._strip or len(self._buf) + len(data) > self.max_line_bytes:
            return list(self._feed_slowly(data))
        # The common case: no line here can be over the limit, so split in one call.
        parts = data.split(b"\n")
        if self._buf and len(parts) > 1:
            self._buf += parts[0]
            parts[0] = bytes(self._buf)
            self._buf.clear()
        self._buf += parts.pop()
        return [line for part in parts if (line := part.strip())]

    def _feed_slowly(self, data: bytes) -> Iterator[bytes | Oversize]:
        start = 0
        while True:
            end = data.find(b"\n", start)
            if end < 0:
                self._keep(data, start)
                return
            item = self._finish(data, start, end)
            start = end + 1
            if item is not None:
                yield item

    def _finish(self, data: bytes, start: int, end: int) -> bytes | Oversize | None:
        if self._skipping:
            self._grow_head(data, start, end)
            size = self._skipping + end - start
            self._skipping = 0
            return Oversize(size, self._head)
        if self._buf:
            self._buf += data[start:end]
            line = bytes(self._buf)
            self._buf.clear()
        else:
            line = data[start:end]
        if len(line) > self.max_line_bytes:
            return Oversize(len(line), line[: self.HEAD_BYTES])
        return self._trim(line)

    def _trim(self, line: bytes) -> bytes | None:
        """The line as served (stripped unless told otherwise), or None when blank."""
        stripped = line.strip()
        if not stripped:
            return None
        return stripped if self._strip else line

    def _keep(self, data: bytes, start: int) -> None:
        if self._skipping:
            self._grow_head(data, start, len(data))
            self._skipping += len(data) - start
            return
        self._buf += data[start:]
        if len(self._buf) > self.max_line_bytes:
            self._head = bytes(self._buf[: self.HEAD_BYTES])
            self._skipping = len(self._buf)
            self._buf.clear()

    def _grow_head(self, data: bytes, start: int, end: int) -> None:
        missing = self.HEAD_BYTES - len(self._head)
        if missing > 0:
            self._head += data[start : min(end, start + missing)]

    def close(self) -> bytes | Oversize | None:
        """At EOF: the last line if it had no newline."""
        if self._skipping:
            size, self._skipping = self._skipping, 0
            return Oversize(size, self._head)
        line = bytes(self._buf)
        self._buf.clear()
        return self._trim(line)
