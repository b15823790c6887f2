"""The log sink: a loop's lines are written together a moment later, other lines at once."""

from __future__ import annotations

import os
import select
import threading
from collections.abc import Iterator

import pytest
import trio

from hookd import logs as hookd_log
from hookd.logs import FLUSH_BYTES, LogSink


def _read_until(fd: int, size: int) -> bytes:
    got = bytearray()
    while len(got) < size:
        readable, _, _ = select.select([fd], [], [], 10)
        assert readable, f"only {len(got)} of {size} bytes arrived"
        got += os.read(fd, 1 << 16)
    return bytes(got)


def _pending(fd: int) -> bool:
    return bool(select.select([fd], [], [], 0)[0])


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    r, w = os.pipe()
    yield r, w
    os.close(r)
    os.close(w)


def test_without_a_loop_each_line_is_written_at_once(pipe: tuple[int, int]) -> None:
    r, w = pipe
    sink = LogSink(w)
    sink.write(b"one\n")
    assert _read_until(r, 4) == b"one\n"


def test_a_loops_lines_are_written_together_a_moment_later(
    pipe: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    r, w = pipe
    sink = LogSink(w)
    monkeypatch.setattr(hookd_log, "_sink", sink)

    async def main() -> None:
        hookd_log.attach()
        sink.write(b"one\n")
        sink.write(b"two\n")
        assert not _pending(r)  # still this loop turn
        await trio.sleep(0)
        assert not _pending(r)  # the burst may go on
        await trio.sleep(hookd_log.DRAIN_DELAY_S * 2)
        assert os.read(r, 100) == b"one\ntwo\n"
        sink.write(b"last\n")

    trio.run(main)
    assert os.read(r, 100) == b"last\n"  # written as the loop ended
    assert sink.loop_thread is None


def test_other_threads_write_at_once_while_a_loop_runs(
    pipe: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    r, w = pipe
    sink = LogSink(w)
    monkeypatch.setattr(hookd_log, "_sink", sink)

    async def main() -> None:
        hookd_log.attach()
        await trio.to_thread.run_sync(sink.write, b"from a thread\n")
        assert _read_until(r, 14) == b"from a thread\n"

    trio.run(main)


def test_a_large_gathering_is_written_without_waiting(
    pipe: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    r, w = pipe
    os.set_blocking(r, False)
    sink = LogSink(w)
    monkeypatch.setattr(hookd_log, "_sink", sink)
    line = b"x" * 1023 + b"\n"
    count = FLUSH_BYTES // len(line) + 1
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(_read_until(r, count * len(line))))
    reader.start()

    async def main() -> None:
        hookd_log.attach()
        for _ in range(count):
            sink.write(line)
        reader.join(10)  # within this loop turn
        assert not reader.is_alive()

    trio.run(main)
    assert got == [line * count]


def test_a_write_waits_for_a_full_stderr_to_drain(pipe: tuple[int, int]) -> None:
    r, w = pipe
    os.set_blocking(w, False)  # as a terminal or pipe shared with a non-blocking writer
    filled = 0
    while select.select([], [w], [], 0)[1]:
        try:
            filled += os.write(w, b"-" * 4096)
        except BlockingIOError:
            break
    sink = LogSink(w)
    payload = b"a log line\n" * 10_000
    writer = threading.Thread(target=sink.write, args=(payload,))
    writer.start()
    received = _read_until(r, filled + len(payload))
    writer.join(10)
    assert not writer.is_alive()
    assert received == b"-" * filled + payload
