"""Hooks for faults on the CLI's side: requests kept in flight on every runner."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import trio

import hookd
from hookd import HookContext, HookMatcher
from tests.hooks.faults._healthy import healthy

Input = dict[str, Any]
ECHO_BYTES = 16_000


@hookd.runs_on("trio")
async def hang(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    await trio.sleep_forever()


def hang_in_thread(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    threading.Event().wait()  # blocked for good: never reads ctx.cancelled


@hookd.runs_on("asyncio")
async def hang_on_asyncio(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    await asyncio.Event().wait()


@hookd.runs_on("trio")
async def slow(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    delay = float(input_data.get("sleep_s", 0.2))
    await trio.sleep(delay)
    return hookd.allow(f"slept {delay:g}")


@hookd.runs_on("trio")
async def echo(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    return hookd.allow("e" * ECHO_BYTES)


hooks = {
    "PreToolUse": [
        HookMatcher(matcher="Hang", hooks=[hang], timeout=60),
        HookMatcher(matcher="HangThread", hooks=[hang_in_thread], timeout=60),
        HookMatcher(matcher="HangAsyncio", hooks=[hang_on_asyncio], timeout=60),
        # the same, with deadlines a test can wait for (stdin closed with them in flight)
        HookMatcher(matcher="HangBrief", hooks=[hang], timeout=1.5),
        HookMatcher(matcher="HangBriefThread", hooks=[hang_in_thread], timeout=1.5),
        HookMatcher(matcher="HangBriefAsyncio", hooks=[hang_on_asyncio], timeout=1.5),
        HookMatcher(matcher="Slow", hooks=[slow], timeout=60),
        HookMatcher(matcher="Echo", hooks=[echo], timeout=60),
        *healthy(),
    ]
}
