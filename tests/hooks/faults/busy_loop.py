"""Fault: an async hook busy-loops without ever awaiting (trio, asyncio, worker thread)."""

from __future__ import annotations

from typing import Any

import trio

import hookd
from hookd import HookContext, HookMatcher
from tests.hooks.faults._healthy import healthy

Input = dict[str, Any]


def _spin() -> None:
    spins = 0
    while True:
        spins += 1


@hookd.runs_on("trio")
async def spin_on_trio(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    _spin()


@hookd.runs_on("asyncio")
async def spin_on_asyncio(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    _spin()


def spin_in_thread(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    _spin()


@hookd.runs_on("trio")
async def hang(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    await trio.sleep_forever()


hooks = {
    "PreToolUse": [
        HookMatcher(matcher="Fault", hooks=[spin_on_trio], timeout=0.5),
        HookMatcher(matcher="FaultAsyncio", hooks=[spin_on_asyncio], timeout=0.5),
        HookMatcher(matcher="FaultThread", hooks=[spin_in_thread], timeout=0.5),
        HookMatcher(matcher="Hang", hooks=[hang], timeout=0.3),
        *healthy(timeout=1),
    ]
}
