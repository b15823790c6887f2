"""Spawn-per-call contender: each hook_callback runs ``python3 cmd_hook.py`` once.

This is what a command hook in a Claude Code ``settings.json`` costs: a fresh
interpreter per call, the hook input on its stdin, its JSON decision read from
stdout. Requests are served concurrently (one asyncio task and one child process
each). The interpreter is the base Python (not the virtualenv, not a shim).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any, Final

HOOK: Final = str(Path(__file__).with_name("cmd_hook.py"))
PYTHON: Final = os.path.realpath(getattr(sys, "_base_executable", sys.executable))


async def run_hook(hook_input: Any) -> Any:
    """One spawn of the command hook; its stdout parsed as JSON."""
    proc = await asyncio.create_subprocess_exec(
        PYTHON, HOOK, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    out, _ = await proc.communicate(json.dumps(hook_input).encode())
    if proc.returncode != 0:
        raise RuntimeError(f"hook exited with {proc.returncode}")
    return json.loads(out)


async def answer(line: bytes, out: asyncio.StreamWriter) -> None:
    message = json.loads(line)
    request_id, request = message["request_id"], message["request"]
    body: dict[str, Any] = {"subtype": "success", "request_id": request_id, "response": {}}
    try:
        if request["subtype"] == "hook_callback":
            body["response"] = await run_hook(request["input"])
    except Exception as exc:
        body = {"subtype": "error", "request_id": request_id, "error": str(exc)}
    out.write(json.dumps({"type": "control_response", "response": body}).encode() + b"\n")


async def main() -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 20)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, sys.stdout
    )
    out = asyncio.StreamWriter(transport, protocol, None, loop)
    tasks: set[asyncio.Task[None]] = set()
    while line := await reader.readline():
        if line.strip():
            task = asyncio.create_task(answer(line, out))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
    if tasks:
        await asyncio.wait(tasks)
    await out.drain()


if __name__ == "__main__":
    asyncio.run(main())
