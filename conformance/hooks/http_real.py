"""Hooks for the real Claude Code CLI over HTTP (``transcripts/http_*.jsonl``).

PreToolUse on Bash, by what the command holds: ``rm -rf`` deny; ``rewrite X`` (first) allow
and run ``echo X`` instead; ``context:X`` allow with added context; ``raise`` raise
(PreToolUse blocks on failure); ``hang`` never answer (timeout 1.5 s); ``touch`` (first) no
opinion (the CLI's permission flow, hence PermissionRequest, decides); anything else allow.
PostToolUse raises under ``continue`` when the command mentions ``postfail``.
PermissionRequest allows commands that mention ``permitted`` and denies the others.
UserPromptSubmit blocks prompts that mention ``forbidden`` and adds context to the others.
"""

from __future__ import annotations

from typing import Any

import trio

from hookd import HookContext, HookMatcher, add_context, allow, block, deny


def _command(input_data: dict[str, Any]) -> str:
    return str(input_data.get("tool_input", {}).get("command", ""))


async def guard(input_data: dict[str, Any], tool_use_id: str | None, context: HookContext) -> Any:
    command = _command(input_data)
    if "rm -rf" in command:
        return deny("no recursive deletes")
    if command.startswith("rewrite "):
        out = allow("rewritten")
        out["hookSpecificOutput"]["updatedInput"] = {"command": f"echo {command[8:]}"}
        return out
    if "context:" in command:
        out = allow("with context")
        out["hookSpecificOutput"]["additionalContext"] = f"remember {command.split(':', 1)[1]}"
        return out
    if "raise" in command:
        raise RuntimeError("the guard itself broke")
    if "hang" in command:
        await trio.sleep_forever()
    if command.startswith("touch "):
        return None
    return allow("fine")


async def after(input_data: dict[str, Any], tool_use_id: str | None, context: HookContext) -> Any:
    if "postfail" in _command(input_data):
        raise ValueError("the post hook broke")
    return None


async def permission(
    input_data: dict[str, Any], tool_use_id: str | None, context: HookContext
) -> Any:
    if "permitted" in _command(input_data):
        decision: dict[str, Any] = {"behavior": "allow"}
    else:
        decision = {"behavior": "deny", "message": "not permitted by hookd"}
    return {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}


async def prompt(input_data: dict[str, Any], tool_use_id: str | None, context: HookContext) -> Any:
    if "forbidden" in str(input_data.get("prompt", "")):
        return block("that prompt is forbidden here")
    return add_context("answer briefly", event="UserPromptSubmit")


hooks = {
    "PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard], timeout=1.5)],
    "PostToolUse": [HookMatcher(matcher="Bash", hooks=[after], on_failure="continue")],
    "PermissionRequest": [HookMatcher(matcher="Bash", hooks=[permission])],
    "UserPromptSubmit": [HookMatcher(hooks=[prompt])],
}
