"""Reproduces ``v2.1.330_error-then-can_use_tool.jsonl``.

PreToolUse fails and, with ``on_failure="continue"``, is answered with an error
response; ``can_use_tool`` then allows the tool with its input unchanged.
"""

from __future__ import annotations

from typing import Any

from _real import Input, real_cli_hooks

from hookd import HookContext, HookMatcher


async def failing_bash(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    raise RuntimeError("hookd: simulated hook failure")


async def can_use_tool(tool_name: str, tool_input: Input, context: Any) -> Any:
    return {"behavior": "allow", "updatedInput": tool_input}


hooks = real_cli_hooks(HookMatcher(matcher="Bash", hooks=[failing_bash], on_failure="continue"))
