"""``hookd run`` scenario: a PreToolUse hook raises under ``on_failure="block"``."""

from __future__ import annotations

from typing import Any

from hookd import HookContext, HookMatcher


async def explode(input_data: dict[str, Any], tool_use_id: str | None, ctx: HookContext) -> Any:
    raise ValueError("boom from the block hook")


hooks = {
    "PreToolUse": [HookMatcher(matcher="Bash", hooks=[explode], timeout=10, on_failure="block")]
}
