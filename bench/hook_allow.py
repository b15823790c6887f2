"""The hook every hookd contender serves: allow every Bash call, doing nothing else."""

from __future__ import annotations

from typing import Any

from hookd import HookMatcher


async def allow(
    input_data: dict[str, Any], tool_use_id: str | None, context: Any
) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}


hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[allow])]}
