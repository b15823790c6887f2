"""``hookd run`` scenario: a PreToolUse hook raises under ``on_failure="continue"``.

The CLI then asks ``can_use_tool``, which allows the call and rewrites
``touch X.requested`` to ``touch X.permitted``, so a test can see it was asked.
"""

from __future__ import annotations

from typing import Any

from hookd import HookContext, HookMatcher


async def explode(input_data: dict[str, Any], tool_use_id: str | None, ctx: HookContext) -> Any:
    raise ValueError("boom from the continue hook")


def can_use_tool(tool_name: str, tool_input: dict[str, Any], context: Any) -> Any:
    command = str(tool_input.get("command", "")).replace(".requested", ".permitted")
    return {"behavior": "allow", "updatedInput": {**tool_input, "command": command}}


hooks = {
    "PreToolUse": [HookMatcher(matcher="Bash", hooks=[explode], timeout=10, on_failure="continue")]
}
