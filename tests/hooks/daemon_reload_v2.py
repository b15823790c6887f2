"""Hot reload, after: every Bash call is denied, naming the calls counted before the reload."""

from __future__ import annotations

from typing import Any

from hookd import HookContext, HookMatcher, deny


async def refuse(input_data: dict[str, Any], tool_use_id: str | None, context: HookContext) -> Any:
    return deny(f"reloaded: denied after {context.state.get('calls', 0)} earlier call(s)")


hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[refuse], timeout=5)]}
