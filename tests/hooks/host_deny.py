"""``hookd run`` scenario: PreToolUse denies every Bash command."""

from __future__ import annotations

from typing import Any

from hookd import HookContext, HookMatcher, deny


async def deny_bash(input_data: dict[str, Any], tool_use_id: str | None, ctx: HookContext) -> Any:
    return deny(f"denied by hookd: {input_data['tool_input']['command']}")


hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[deny_bash], timeout=10)]}
