"""Host scenario: a PreToolUse hook that says it started (on a named pipe), then waits long."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import trio

from hookd import HookContext, HookMatcher


async def wait(input_data: dict[str, Any], tool_use_id: str | None, ctx: HookContext) -> Any:
    with Path(os.environ["HOOKD_TEST_STARTED"]).open("w") as fifo:  # the test reads it
        fifo.write("started")
    await trio.sleep(60)
    return None


hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[wait], timeout=90)]}
