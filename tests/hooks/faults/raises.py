"""Fault: a hook raises an ordinary exception (trio, worker thread, asyncio)."""

from __future__ import annotations

from typing import Any

import hookd
from hookd import HookContext, HookMatcher
from tests.hooks.faults._healthy import healthy

Input = dict[str, Any]


@hookd.runs_on("trio")
async def raise_on_trio(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    raise ValueError("boom on trio")


def raise_in_thread(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    raise ValueError("boom in a thread")


@hookd.runs_on("asyncio")
async def raise_on_asyncio(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    raise ValueError("boom on asyncio")


hooks = {
    "PreToolUse": [
        HookMatcher(matcher="Fault", hooks=[raise_on_trio]),
        HookMatcher(matcher="FaultThread", hooks=[raise_in_thread]),
        HookMatcher(matcher="FaultAsyncio", hooks=[raise_on_asyncio]),
        *healthy(),
    ]
}
