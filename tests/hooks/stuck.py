"""Sync hooks that never give their thread back, and one that answers at once."""

from __future__ import annotations

import time
from typing import Any

from hookd import HookMatcher


def spins(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> None:
    while True:  # pure Python: the watchdog can interrupt it
        pass


def sleeps(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> None:
    time.sleep(60)  # one C call: nothing can interrupt it


def answers(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "fine"}}


def can_use_tool(tool_name: str, tool_input: dict[str, Any], context: Any) -> dict[str, Any]:
    command = str(tool_input.get("command", ""))
    if "rm -rf" in command:
        return {"behavior": "deny", "message": "not with rm -rf"}
    if command == "odd":
        return {"behavior": "perhaps"}
    return {"behavior": "allow", "updated_input": {**tool_input, "command": command + " # ok"}}


hooks = {
    "PreToolUse": [
        HookMatcher(matcher="Spins", hooks=[spins], timeout=0.5),
        HookMatcher(matcher="Sleeps", hooks=[sleeps], timeout=0.5),
        HookMatcher(matcher="Answers", hooks=[answers], timeout=5),
    ]
}
