"""A hook that sleeps 100 ms before allowing: 1,000 in flight should take ~100 ms, not 100 s."""

from __future__ import annotations

from typing import Any

import trio

from hookd import HookMatcher


async def sleep_then_allow(
    input_data: dict[str, Any], tool_use_id: str | None, context: Any
) -> dict[str, Any]:
    await trio.sleep(0.1)
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}


hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[sleep_then_allow])]}
