#!/usr/bin/env python
# mypy: disable-error-code="list-item,dict-item"
# (the SDK types callbacks by its own input TypedDicts and event names; its examples do not)
"""Hooks written the way Claude Agent SDK users write them, served by hookd unchanged.

Typed with the SDK's own names, configuration held in one module-level
``ClaudeAgentOptions``, callbacks returning the SDK's output shapes. Run with
the SDK it would be ``ClaudeSDKClient(options=options)``; with hookd it is
``hookd serve tests/hooks/sdk/guarded_session.py``.
"""

import logging
from typing import Any

from claude_agent_sdk import ClaudeAgentOptions, HookContext, HookJSONOutput, HookMatcher

log = logging.getLogger(__name__)

FORBIDDEN = ("deploy.sh", "rm -rf /")


async def refuse_forbidden_commands(
    input_data: dict[str, Any], tool_use_id: str | None, context: HookContext
) -> HookJSONOutput:
    """Deny Bash commands that mention a forbidden script or pattern."""
    if input_data["tool_name"] != "Bash":
        return {}
    command = input_data["tool_input"].get("command", "")
    for needle in FORBIDDEN:
        if needle in command:
            log.warning("refused: %s", command)
            return {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": f"'{needle}' is not allowed here",
                }
            }
    return {}


async def greet_session(
    input_data: dict[str, Any], tool_use_id: str | None, context: HookContext
) -> HookJSONOutput:
    """Tell the model something about the user when the session starts."""
    return {
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "additionalContext": "The user prefers short answers.",
        }
    }


async def review_tool_output(
    input_data: dict[str, Any], tool_use_id: str | None, context: HookContext
) -> HookJSONOutput:
    """Flag tool output that reports an error, for the model and the user."""
    response = str(input_data.get("tool_response", ""))
    if "error" in response.lower():
        return {
            "systemMessage": "The last command printed an error.",
            "reason": "the tool reported an error",
            "hookSpecificOutput": {
                "hookEventName": "PostToolUse",
                "additionalContext": "Check the error before going on.",
            },
        }
    return {}


async def halt_on_secret(
    input_data: dict[str, Any], tool_use_id: str | None, context: HookContext
) -> HookJSONOutput:
    """Stop the whole run when a prompt contains a secret; reads the context as SDK code does."""
    if context.get("signal") is not None or context["signal"] is not None:
        return {}
    if "SECRET" in input_data.get("prompt", ""):
        return {"continue_": False, "stopReason": "a secret was pasted", "suppressOutput": True}
    return {}


options = ClaudeAgentOptions(
    allowed_tools=["Bash"],
    hooks={
        "PreToolUse": [HookMatcher(matcher="Bash", hooks=[refuse_forbidden_commands])],
        "SessionStart": [HookMatcher(matcher=None, hooks=[greet_session])],
        "PostToolUse": [HookMatcher(matcher="Bash", hooks=[review_tool_output], timeout=20)],
        "UserPromptSubmit": [HookMatcher(matcher=None, hooks=[halt_on_secret])],
    },
)
