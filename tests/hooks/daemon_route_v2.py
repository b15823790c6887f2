"""Routing, after a save: a Write matcher and a new event (PostToolUse) beside the Bash guard."""

from __future__ import annotations

from typing import Any

from hookd import HookMatcher, add_context, deny


async def guard(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> Any:
    if "forbidden" in input_data["tool_input"].get("command", ""):
        return deny("forbidden by the daemon guard")
    return None


async def no_writes(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> Any:
    return deny("writes refused by a matcher added after install")


async def after(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> Any:
    return add_context("post-context-from-an-event-added-after-install", event="PostToolUse")


hooks = {
    "PreToolUse": [
        HookMatcher(matcher="Bash", hooks=[guard], timeout=5),
        HookMatcher(matcher="Write", hooks=[no_writes], timeout=5),
    ],
    "PostToolUse": [HookMatcher(matcher="Bash", hooks=[after], timeout=5)],
}
