"""The hooks the real-CLI recordings registered, in their order, with a chosen PreToolUse hook.

Order: ``PreToolUse`` (matcher ``Bash``), ``PostToolUse``, ``UserPromptSubmit``,
``Stop``; every hook but PreToolUse answers ``{}``.
"""

from __future__ import annotations

from typing import Any

from hookd import HookContext, HookMatcher

Input = dict[str, Any]


async def empty(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    return {}


def real_cli_hooks(pre_tool_use: HookMatcher) -> dict[str, list[HookMatcher]]:
    """The recordings' hooks map around ``pre_tool_use``."""
    return {
        "PreToolUse": [pre_tool_use],
        "PostToolUse": [HookMatcher(hooks=[empty])],
        "UserPromptSubmit": [HookMatcher(hooks=[empty])],
        "Stop": [HookMatcher(hooks=[empty])],
    }
