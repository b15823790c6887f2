"""The official Python SDK's control-request handling, over this process's stdio.

``claude_agent_sdk``'s internal ``Query`` (what ``ClaudeSDKClient`` and
``query()`` run) is given a :class:`StdioTransport`: the SDK's own transport
reads a CLI subprocess's stdout, this one reads our stdin instead, in the same
way (64 KiB chunks from an asyncio pipe, split on ``\\n``, ``json.loads`` per
line; writes serialised by a lock). One PreToolUse hook that allows is
registered. As with a real CLI, the SDK *sends* ``initialize`` (announcing its
callback ids, ``hook_0`` ...) and waits for the answer; then it answers
``hook_callback`` requests until stdin closes. Runs on asyncio, the default.
"""

from __future__ import annotations

import asyncio
import codecs
import json
import sys
from collections.abc import AsyncIterator
from typing import Any

import anyio
from claude_agent_sdk._internal.query import Query
from claude_agent_sdk._internal.transport import Transport

READ_BYTES = 1 << 16


async def allow(input_data: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}


class StdioTransport(Transport):
    """NDJSON over this process's stdin (messages in) and stdout (messages out)."""

    def __init__(self) -> None:
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._lock = anyio.Lock()

    async def connect(self) -> None:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=1 << 20)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        transport, protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, sys.stdout
        )
        self._reader = reader
        self._writer = asyncio.StreamWriter(transport, protocol, None, loop)

    async def write(self, data: str) -> None:
        async with self._lock:
            if self._writer is None:
                raise RuntimeError("transport is not connected")
            self._writer.write(data.encode())
            await self._writer.drain()

    def read_messages(self) -> AsyncIterator[dict[str, Any]]:
        return self._messages()

    async def _messages(self) -> AsyncIterator[dict[str, Any]]:
        if self._reader is None:
            raise RuntimeError("transport is not connected")
        decoder = codecs.getincrementaldecoder("utf-8")()
        partial = ""
        while chunk := await self._reader.read(READ_BYTES):
            *lines, partial = (partial + decoder.decode(chunk)).split("\n")
            for line in lines:
                if line.strip():
                    yield json.loads(line)

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def is_ready(self) -> bool:
        return self._writer is not None

    async def end_input(self) -> None:
        await self.close()


async def main() -> None:
    transport = StdioTransport()
    await transport.connect()
    hooks: dict[str, list[dict[str, Any]]] = {"PreToolUse": [{"matcher": "Bash", "hooks": [allow]}]}
    query = Query(transport=transport, is_streaming_mode=True, hooks=hooks)
    await query.start()
    await query.initialize()
    async for _message in query.receive_messages():
        pass
    await query.close()


if __name__ == "__main__":
    asyncio.run(main())
