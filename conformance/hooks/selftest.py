"""Hooks for the replayer's own tests: a fast one and one that never answers."""

from __future__ import annotations

from typing import Any

import trio

from hookd import HookContext, HookMatcher

Input = dict[str, Any]


async def fast(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    return {}


async def hang(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    await trio.sleep_forever()


hooks = {
    "Stop": [HookMatcher(hooks=[fast])],  # hook_1
    "Notification": [HookMatcher(hooks=[hang])],  # hook_2
}
