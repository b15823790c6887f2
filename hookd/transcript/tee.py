"""Stream wrappers that pass protocol bytes through and record each line to a transcript."""

from __future__ import annotations

import trio

from hookd.transcript.format import FROM_HOOKD, TO_HOOKD, TranscriptWriter

__all__ = ["TeeReceive", "TeeSend"]


class _Lines:
    """Splits a byte stream into lines (the recorder keeps them whole, whatever their size)."""

    def __init__(self) -> None:
        self._buf = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        self._buf += data
        lines: list[bytes] = []
        start = 0
        while (end := self._buf.find(b"\n", start)) >= 0:
            line = bytes(self._buf[start:end])
            start = end + 1
            if line.strip():
                lines.append(line)
        del self._buf[:start]
        return lines

    def close(self) -> bytes | None:
        line, self._buf = bytes(self._buf), bytearray()
        return line if line.strip() else None


class TeeReceive(trio.abc.ReceiveStream):
    def __init__(self, inner: trio.abc.ReceiveStream, writer: TranscriptWriter) -> None:
        self._inner, self._writer, self._lines = inner, writer, _Lines()
        self._done = False

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        data = bytes(await self._inner.receive_some(max_bytes))
        for line in self._lines.feed(data):
            self._writer.write(TO_HOOKD, line)
        if not data:
            self._finish()
        return data

    def _finish(self) -> None:
        if not self._done:
            self._done = True
            tail = self._lines.close()
            if tail is not None:
                self._writer.write(TO_HOOKD, tail)
            self._writer.release()

    async def aclose(self) -> None:
        self._finish()
        await self._inner.aclose()


class TeeSend(trio.abc.SendStream):
    def __init__(self, inner: trio.abc.SendStream, writer: TranscriptWriter) -> None:
        self._inner, self._writer, self._lines = inner, writer, _Lines()
        self._done = False

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self._inner.send_all(data)
        for line in self._lines.feed(bytes(data)):
            self._writer.write(FROM_HOOKD, line)

    async def wait_send_all_might_not_block(self) -> None:
        await self._inner.wait_send_all_might_not_block()

    async def aclose(self) -> None:
        if not self._done:
            self._done = True
            self._writer.release()
        await self._inner.aclose()
