"""Routing, before a save: the module guards Bash only."""

from __future__ import annotations

from typing import Any

from hookd import HookMatcher, deny


async def guard(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> Any:
    if "forbidden" in input_data["tool_input"].get("command", ""):
        return deny("forbidden by the daemon guard")
    return None


hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard], timeout=5)]}
