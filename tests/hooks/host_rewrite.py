"""``hookd run`` scenario: PreToolUse rewrites the command (``updatedInput``).

``touch X.requested`` becomes ``touch X.rewritten``.
"""

from __future__ import annotations

from typing import Any

from hookd import HookContext, HookMatcher, update_input


async def rewrite(input_data: dict[str, Any], tool_use_id: str | None, ctx: HookContext) -> Any:
    tool_input = dict(input_data["tool_input"])
    tool_input["command"] = tool_input["command"].replace(".requested", ".rewritten")
    return update_input(tool_input, reason="rewritten by hookd")


hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[rewrite], timeout=10)]}
