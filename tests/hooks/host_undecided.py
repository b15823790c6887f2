"""``hookd run`` scenario: PreToolUse decides nothing, and the module has no ``can_use_tool``."""

from __future__ import annotations

from typing import Any

from hookd import HookContext, HookMatcher, add_context


async def shrug(input_data: dict[str, Any], tool_use_id: str | None, ctx: HookContext) -> Any:
    return add_context("no opinion from hookd", event="PreToolUse")


hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[shrug], timeout=10)]}
