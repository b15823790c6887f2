"""The well-behaved hooks every fault module registers beside its faults."""

from __future__ import annotations

from typing import Any

import hookd
from hookd import HookContext, HookMatcher

Input = dict[str, Any]


@hookd.runs_on("trio")
async def ok(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    return hookd.allow("ok")


def ok_in_thread(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    return hookd.allow("ok")


@hookd.runs_on("asyncio")
async def ok_on_asyncio(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    return hookd.allow("ok")


def healthy(timeout: float = 2) -> list[HookMatcher]:
    """``PreToolUse/Ok``, ``OkThread``, ``OkAsyncio``: answered ``allow`` when healthy."""
    return [
        HookMatcher(matcher="Ok", hooks=[ok], timeout=timeout),
        HookMatcher(matcher="OkThread", hooks=[ok_in_thread], timeout=timeout),
        HookMatcher(matcher="OkAsyncio", hooks=[ok_on_asyncio], timeout=timeout),
    ]
