"""The trio floor: the floor's answerer on trio, and nothing else.

The same answers as ``floor.py`` (msgspec decode to plain Python objects, one
encode and one ``write`` per answer) in one trio task that waits for a readable
stdin with trio's lowest-level primitive and reads and writes the descriptors
directly: no streams, no extra checkpoints, no registry, timeouts, validation or
log line, no task or cancel scope per request. A server on trio does at least
this per answer (at 1 in flight, one pass of trio's run loop to learn that stdin
is readable), so this contender's ratio to the floor bounds what any server on
trio can reach on the same machine in the same round.
"""

from __future__ import annotations

import os
from typing import Final

import msgspec
import trio
import trio.lowlevel

from bench.floor import answer

READ_SIZE: Final = 65_536


async def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            await trio.lowlevel.wait_writable(fd)


async def serve(fd_in: int, fd_out: int) -> None:
    decode, encode = msgspec.json.decode, msgspec.json.encode
    os.set_blocking(fd_in, False)
    os.set_blocking(fd_out, False)
    pending = b""
    while True:
        await trio.lowlevel.wait_readable(fd_in)
        chunk = os.read(fd_in, READ_SIZE)
        if not chunk:
            return
        *lines, pending = (pending + chunk).split(b"\n")
        for line in lines:
            message = decode(line)
            if message.get("type") == "control_request":
                await write_all(fd_out, encode(answer(message)) + b"\n")


def main() -> None:
    trio.run(serve, 0, 1)


if __name__ == "__main__":
    main()
