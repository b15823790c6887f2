"""Hooks that report, from their own ``finally``, how late they were cancelled.

Each writes one JSON line to ``$DEADLINE_LOG``: the deadline it was shown
(seconds left at its start) and how far past that deadline its clean-up ran.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

import trio

from hookd import HookMatcher


def _report(kind: str, context: Any, shown_left: float) -> None:
    late_s = time.monotonic() - context.deadline
    with open(os.environ["DEADLINE_LOG"], "a") as out:
        out.write(json.dumps({"kind": kind, "shown_left": shown_left, "late_s": late_s}) + "\n")


async def waits(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> None:
    shown_left = context.time_left()
    try:
        await trio.sleep(30)
    finally:
        _report("trio", context, shown_left)


def blocks(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> None:
    shown_left = context.time_left()
    context.wait_cancelled(30)
    _report("thread", context, shown_left)


async def can_use_tool(tool_name: str, tool_input: dict[str, Any], context: Any) -> None:
    shown_left = context.time_left()
    try:
        await trio.sleep(60)
    finally:
        _report("can_use_tool", context, shown_left)


hooks = {
    "PreToolUse": [
        HookMatcher(matcher="Waits", hooks=[waits], timeout=1),
        HookMatcher(matcher="Blocks", hooks=[blocks], timeout=1),
    ]
}
