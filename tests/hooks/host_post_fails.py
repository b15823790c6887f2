"""Host scenario: a PostToolUse hook that fails (the CLI reports it on its own stderr)."""

from __future__ import annotations

from typing import Any

from hookd import HookContext, HookMatcher


async def audit(input_data: dict[str, Any], tool_use_id: str | None, ctx: HookContext) -> Any:
    raise RuntimeError("audit store unreachable")


hooks = {"PostToolUse": [HookMatcher(matcher="Bash", hooks=[audit])]}
