"""The single writer: queued lines, joined into few writes; never blocks who queues."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from hookd.serve.writer import Writer


@pytest.mark.req("R-208")
async def test_writer_never_blocks_on_a_stalled_reader() -> None:
    send, receive = trio.testing.lockstep_stream_pair()
    sink = Writer("test")
    expected = b"".join(b"line %d\n" % i for i in range(2000))
    async with trio.open_nursery() as nursery:
        nursery.start_soon(sink.run, send)
        for i in range(2000):
            sink.send_line(b"line %d\n" % i)  # synchronous: would deadlock if it could block
        sink.close()
        got = b""
        with trio.fail_after(5):
            while len(got) < len(expected):
                got += await receive.receive_some()
    assert got == expected
    assert sink.written_bytes == len(expected)


@pytest.mark.req("R-208")
async def test_writer_drops_output_once_its_reader_is_gone() -> None:
    send, receive = trio.testing.lockstep_stream_pair()
    await receive.aclose()
    sink = Writer("test")
    sink.send_line(b"first\n")
    sink.close()
    with trio.fail_after(5):
        await sink.run(send)
    assert sink.broken
    sink.send_line(b"second\n")
    assert sink.written_bytes == 0
