#!/usr/bin/env python3
"""A permission callback written the way Claude Agent SDK users write one.

Reads are allowed, writes to system folders denied, other writes redirected,
dangerous commands denied; any other tool is put to the user with ``input()``.
Configured through a module-level ``ClaudeAgentOptions(can_use_tool=...)``.
"""

from typing import Any

from claude_agent_sdk import (
    ClaudeAgentOptions,
    PermissionResultAllow,
    PermissionResultDeny,
    ToolPermissionContext,
)

requests_seen: list[dict[str, object]] = []

READ_ONLY = {"Read", "Glob", "Grep"}
SYSTEM_DIRS = ("/etc/", "/usr/", "/bin/")
RISKY = ("rm -rf", "sudo ", "mkfs", "chmod 777")


async def decide_tool_use(
    tool_name: str, input_data: dict[str, Any], context: ToolPermissionContext
) -> PermissionResultAllow | PermissionResultDeny:
    """Allow, deny or rewrite one tool call; ask the user about unknown tools."""
    requests_seen.append({"tool": tool_name, "suggestions": context.suggestions})
    if tool_name in READ_ONLY:
        return PermissionResultAllow()
    if tool_name in ("Write", "Edit"):
        path = input_data.get("file_path", "")
        if path.startswith(SYSTEM_DIRS):
            return PermissionResultDeny(message=f"{path} is a system file")
        if not path.startswith("/tmp/"):
            moved = dict(input_data, file_path="/tmp/sandbox/" + path.rsplit("/", 1)[-1])
            return PermissionResultAllow(updated_input=moved)
        return PermissionResultAllow()
    if tool_name == "Bash":
        command = input_data.get("command", "")
        for risky in RISKY:
            if risky in command:
                return PermissionResultDeny(message=f"risky command: {risky.strip()}")
        return PermissionResultAllow()
    answer = input(f"Allow {tool_name}? (y/N): ").strip().lower()
    if answer in ("y", "yes"):
        return PermissionResultAllow()
    return PermissionResultDeny(message="the user said no")


options = ClaudeAgentOptions(can_use_tool=decide_tool_use, permission_mode="default", cwd=".")
