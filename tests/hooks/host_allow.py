"""``hookd run`` scenario: PreToolUse allows every Bash command."""

from __future__ import annotations

from typing import Any

from hookd import HookContext, HookMatcher, allow


async def allow_bash(input_data: dict[str, Any], tool_use_id: str | None, ctx: HookContext) -> Any:
    return allow("allowed by hookd")


hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[allow_bash], timeout=10)]}
