"""Fault: a hook recurses until ``RecursionError`` (trio, worker thread, asyncio)."""

from __future__ import annotations

from typing import Any

import hookd
from hookd import HookContext, HookMatcher
from tests.hooks.faults._healthy import healthy

Input = dict[str, Any]


def _down(depth: int) -> int:
    return _down(depth + 1) + 1


@hookd.runs_on("trio")
async def recurse_on_trio(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    return _down(0)


def recurse_in_thread(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    return _down(0)


@hookd.runs_on("asyncio")
async def recurse_on_asyncio(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    return _down(0)


async def _adown(depth: int) -> int:
    return await _adown(depth + 1) + 1


@hookd.runs_on("trio")
async def recurse_async(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    return await _adown(0)


hooks = {
    "PreToolUse": [
        HookMatcher(matcher="Fault", hooks=[recurse_on_trio], timeout=10),
        HookMatcher(matcher="FaultThread", hooks=[recurse_in_thread], timeout=10),
        HookMatcher(matcher="FaultAsyncio", hooks=[recurse_on_asyncio], timeout=10),
        HookMatcher(matcher="FaultAwait", hooks=[recurse_async], timeout=10),
        *healthy(),
    ]
}
