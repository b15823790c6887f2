"""Fault: a hook raises with an empty message, or one whose message cannot be printed."""

from __future__ import annotations

from typing import Any

import hookd
from hookd import HookContext, HookMatcher
from tests.hooks.faults._healthy import healthy

Input = dict[str, Any]


class Unprintable(Exception):
    """An exception whose ``str()`` itself raises."""

    def __str__(self) -> str:
        raise RuntimeError("__str__ failed")


@hookd.runs_on("trio")
async def raise_empty(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    raise RuntimeError()


def raise_empty_in_thread(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    raise LookupError("")


@hookd.runs_on("asyncio")
async def raise_empty_on_asyncio(
    input_data: Input, tool_use_id: str | None, ctx: HookContext
) -> Any:
    raise OSError()


@hookd.runs_on("trio")
async def raise_unprintable(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    raise Unprintable()


hooks = {
    "PreToolUse": [
        HookMatcher(matcher="Fault", hooks=[raise_empty], on_failure="continue"),
        HookMatcher(matcher="FaultThread", hooks=[raise_empty_in_thread], on_failure="continue"),
        HookMatcher(matcher="FaultAsyncio", hooks=[raise_empty_on_asyncio], on_failure="continue"),
        HookMatcher(matcher="FaultUnprintable", hooks=[raise_unprintable]),
        *healthy(),
    ]
}
