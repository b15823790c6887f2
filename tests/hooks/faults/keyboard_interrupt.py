"""Fault: a hook raises ``KeyboardInterrupt`` (trio, worker thread, asyncio)."""

from __future__ import annotations

from typing import Any

import hookd
from hookd import HookContext, HookMatcher
from tests.hooks.faults._healthy import healthy

Input = dict[str, Any]


@hookd.runs_on("trio")
async def interrupt_on_trio(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    raise KeyboardInterrupt


def interrupt_in_thread(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    raise KeyboardInterrupt("in a thread")


@hookd.runs_on("asyncio")
async def interrupt_on_asyncio(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    raise KeyboardInterrupt


hooks = {
    "PreToolUse": [
        HookMatcher(matcher="Fault", hooks=[interrupt_on_trio], timeout=2),
        HookMatcher(matcher="FaultThread", hooks=[interrupt_in_thread], timeout=2),
        HookMatcher(matcher="FaultAsyncio", hooks=[interrupt_on_asyncio], timeout=2),
        *healthy(),
    ]
}
