"""``hookd run`` scenarios: ``can_use_tool`` alone, answering with the SDK's result objects.

A command naming ``.forbidden`` is denied; any other is allowed, with
``touch X.requested`` rewritten to ``touch X.permitted``.
"""

from __future__ import annotations

from typing import Any

from claude_agent_sdk import PermissionResultAllow, PermissionResultDeny


async def can_use_tool(tool_name: str, tool_input: dict[str, Any], context: Any) -> Any:
    command = str(tool_input.get("command", ""))
    if ".forbidden" in command:
        return PermissionResultDeny(message=f"forbidden by hookd: {command}")
    rewritten = command.replace(".requested", ".permitted")
    return PermissionResultAllow(updated_input={**tool_input, "command": rewritten})
