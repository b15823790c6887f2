"""Hot reload, before: every Bash call is allowed and counted in the session's state."""

from __future__ import annotations

from typing import Any

from hookd import HookContext, HookMatcher, allow


async def count(input_data: dict[str, Any], tool_use_id: str | None, context: HookContext) -> Any:
    context.state["calls"] = context.state.get("calls", 0) + 1
    return allow("allowed before the reload")


hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[count], timeout=5)]}
