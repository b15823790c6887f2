"""Fault: a hook calls ``sys.exit`` (trio, worker thread, asyncio)."""

from __future__ import annotations

import sys
from typing import Any

import hookd
from hookd import HookContext, HookMatcher
from tests.hooks.faults._healthy import healthy

Input = dict[str, Any]


@hookd.runs_on("trio")
async def exit_on_trio(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    sys.exit(3)


def exit_in_thread(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    sys.exit("leaving")


@hookd.runs_on("asyncio")
async def exit_on_asyncio(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    sys.exit()


hooks = {
    "PreToolUse": [
        HookMatcher(matcher="Fault", hooks=[exit_on_trio], timeout=2),
        HookMatcher(matcher="FaultThread", hooks=[exit_in_thread], timeout=2),
        HookMatcher(matcher="FaultAsyncio", hooks=[exit_on_asyncio], timeout=2),
        *healthy(),
    ]
}
