"""The log buffer: lines held in memory, written by flush, which waits out a full stderr."""

from __future__ import annotations

import os
import select
import threading

from hookd.serve.log import FLUSH_BYTES, LogBuffer


def _read_until(fd: int, size: int) -> bytes:
    got = bytearray()
    while len(got) < size:
        readable, _, _ = select.select([fd], [], [], 10)
        assert readable, f"only {len(got)} of {size} bytes arrived"
        got += os.read(fd, 1 << 16)
    return bytes(got)


def test_lines_wait_in_memory_until_flushed() -> None:
    r, w = os.pipe()
    try:
        buf = LogBuffer(w)
        buf.write(b"one\n")
        buf.flush()  # structlog's per-line flush: deferred
        assert select.select([r], [], [], 0)[0] == []
        buf.flush_now()
        assert _read_until(r, 4) == b"one\n"
    finally:
        os.close(r)
        os.close(w)


def test_a_full_buffer_flushes_itself() -> None:
    r, w = os.pipe()
    os.set_blocking(r, False)
    try:
        buf = LogBuffer(w)
        line = b"x" * 1023 + b"\n"
        reader = threading.Thread(target=lambda: got.append(_read_until(r, FLUSH_BYTES + 1024)))
        got: list[bytes] = []
        reader.start()
        for _ in range(FLUSH_BYTES // len(line) + 1):
            buf.write(line)
        reader.join(10)
        assert not reader.is_alive()
        assert got == [line * (FLUSH_BYTES // len(line) + 1)]
    finally:
        os.close(r)
        os.close(w)


def test_flush_waits_for_a_full_stderr_to_drain() -> None:
    r, w = os.pipe()
    os.set_blocking(w, False)  # as a terminal or pipe shared with a non-blocking writer
    try:
        filled = 0
        while select.select([], [w], [], 0)[1]:
            try:
                filled += os.write(w, b"-" * 4096)
            except BlockingIOError:
                break
        buf = LogBuffer(w)
        payload = b"a log line\n" * 10_000
        buf.write(payload)
        flusher = threading.Thread(target=buf.flush_now)
        flusher.start()
        received = _read_until(r, filled + len(payload))
        flusher.join(10)
        assert not flusher.is_alive()
        assert received == b"-" * filled + payload
    finally:
        os.close(r)
        os.close(w)
