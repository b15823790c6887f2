"""``hookd run`` scenario: many tool calls; every call passes PreToolUse and PostToolUse."""

from __future__ import annotations

from typing import Any

from hookd import HookContext, HookMatcher, add_context, allow


async def allow_bash(input_data: dict[str, Any], tool_use_id: str | None, ctx: HookContext) -> Any:
    return allow("allowed by hookd")


async def count(input_data: dict[str, Any], tool_use_id: str | None, ctx: HookContext) -> Any:
    ctx.state["calls"] = ctx.state.get("calls", 0) + 1
    return add_context(f"post-tool-use call {ctx.state['calls']}", event="PostToolUse")


hooks = {
    "PreToolUse": [HookMatcher(matcher="Bash", hooks=[allow_bash], timeout=10)],
    "PostToolUse": [HookMatcher(matcher="Bash", hooks=[count], timeout=10)],
}
