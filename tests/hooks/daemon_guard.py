"""A hooks module for the daemon tests: a Bash guard, context on prompts, a SessionStart note."""

from __future__ import annotations

from typing import Any

from hookd import HookMatcher, add_context, deny


async def guard(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> Any:
    if "forbidden" in input_data["tool_input"].get("command", ""):
        return deny("forbidden by the daemon guard")
    return None


async def note(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> Any:
    return add_context("session-note-from-hookd", event="SessionStart")


async def audit(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> Any:
    return None


hooks = {
    "PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard], timeout=5)],
    "PostToolUse": [HookMatcher(matcher="Bash|Write", hooks=[audit], timeout=12)],
    "SessionStart": [HookMatcher(hooks=[note], timeout=3)],
}
