"""The reader's receive on a real pipe: reads first while input waits, waits first otherwise.

Whichever way it reads, every byte arrives once and in order, EOF reads as ``b""``,
and each receive is a checkpoint: a cancelled reader takes nothing off the pipe.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator

import pytest
import trio

from hookd.serve.receive import MISSES, PROBE_EVERY, Receiver


@pytest.fixture
async def pipe() -> AsyncIterator[tuple[trio.lowlevel.FdStream, int]]:
    read_fd, write_fd = os.pipe()
    stream = trio.lowlevel.FdStream(read_fd)
    yield stream, write_fd
    await stream.aclose()
    with contextlib.suppress(OSError):  # a test may have closed it (EOF)
        os.close(write_fd)


async def test_reads_first_while_input_is_waiting(pipe: tuple[trio.lowlevel.FdStream, int]) -> None:
    stream, write_fd = pipe
    receiver = Receiver(stream, 65536)
    got = []
    for i in range(50):
        os.write(write_fd, b"line %d\n" % i)
        got.append(await receiver.receive())
        assert receiver.eager  # the input was there each time: no wait for epoll
    assert b"".join(got) == b"".join(b"line %d\n" % i for i in range(50))
    os.close(write_fd)
    assert await receiver.receive() == b""


async def test_waits_first_once_reading_first_finds_nothing_twice(
    pipe: tuple[trio.lowlevel.FdStream, int],
) -> None:
    stream, write_fd = pipe
    receiver = Receiver(stream, 65536)

    async def write_later(data: bytes) -> None:
        await trio.sleep(0.01)
        os.write(write_fd, data)

    got = []
    async with trio.open_nursery() as nursery:
        for i in range(MISSES + 3):
            nursery.start_soon(write_later, b"%d\n" % i)
            got.append(await receiver.receive())
            assert receiver.eager is (i < MISSES - 1)
    assert b"".join(got) == b"".join(b"%d\n" % i for i in range(MISSES + 3))


async def test_tries_reading_first_again_every_probe(
    pipe: tuple[trio.lowlevel.FdStream, int],
) -> None:
    stream, write_fd = pipe
    receiver = Receiver(stream, 65536)
    for _ in range(MISSES):  # an empty pipe each time: the reader turns to waiting first
        with trio.move_on_after(0.01):
            await receiver.receive()
    assert not receiver.eager  # the second of those reads waited for epoll: one of PROBE_EVERY
    for i in range(PROBE_EVERY - 1):  # input waiting, but these reads wait for epoll first
        os.write(write_fd, b"%d\n" % i)
        assert await receiver.receive() == b"%d\n" % i
        assert not receiver.eager
    os.write(write_fd, b"probe\n")
    assert await receiver.receive() == b"probe\n"
    assert receiver.eager  # the probe found input waiting: reading first again


async def test_a_cancelled_receive_takes_nothing_off_the_pipe(
    pipe: tuple[trio.lowlevel.FdStream, int],
) -> None:
    stream, write_fd = pipe
    receiver = Receiver(stream, 65536)
    os.write(write_fd, b"kept\n")
    assert receiver.eager
    with trio.CancelScope() as scope:
        scope.cancel()
        await receiver.receive()
        pytest.fail("receive did not checkpoint")  # pragma: no cover
    assert await receiver.receive() == b"kept\n"


async def test_a_regular_file_reads_to_its_end(tmp_path: os.PathLike[str]) -> None:
    path = os.path.join(tmp_path, "input")
    with open(path, "wb") as f:
        f.write(b"x" * 200_000)
    stream = trio.lowlevel.FdStream(os.open(path, os.O_RDONLY))
    receiver = Receiver(stream, 65536)
    total = 0
    while data := await receiver.receive():
        total += len(data)
    assert total == 200_000
    await stream.aclose()
