"""The hookd contender of the CLI-session bench: Pre- and PostToolUse hooks answering ``{}``."""

from __future__ import annotations

from typing import Any

from hookd import HookContext, HookMatcher


async def pre(input_data: dict[str, Any], tool_use_id: str | None, context: HookContext) -> Any:
    return None


async def post(input_data: dict[str, Any], tool_use_id: str | None, context: HookContext) -> Any:
    return None


hooks = {
    "PreToolUse": [HookMatcher(matcher="Bash", hooks=[pre], timeout=10)],
    "PostToolUse": [HookMatcher(matcher="Bash", hooks=[post], timeout=10)],
}
