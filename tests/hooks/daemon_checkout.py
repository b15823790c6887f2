"""A hooks module that says which checkout it belongs to: its deny reason names its project."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hookd import HookMatcher, deny

PROJECT = Path(__file__).resolve().parents[1].name


async def guard(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> Any:
    if "forbidden" in input_data["tool_input"].get("command", ""):
        return deny(f"denied by the module of checkout {PROJECT}")
    return None


hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard], timeout=5)]}
