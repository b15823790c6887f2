"""``hookd run`` scenario: a PreToolUse hook raises ``HookAbortError`` to stop the session."""

from __future__ import annotations

from typing import Any

from hookd import HookAbortError, HookContext, HookMatcher


async def halt(input_data: dict[str, Any], tool_use_id: str | None, ctx: HookContext) -> Any:
    raise HookAbortError("stopped by hookd: policy violation")


hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[halt], timeout=10)]}
