"""The hooks a real CLI session reaches through ``hookd install``: the command decides.

PreToolUse (Bash): ``allow-me`` allowed, ``forbidden`` denied, ``rewrite-me`` rewritten to
``rewritten``, ``ctx-me`` allowed with added context, ``raise-block`` / ``raise-continue`` raise
under each failure policy, ``slow-me`` outlives its 2 s timeout. PermissionRequest: ``perm-allow``
allowed, ``perm-deny`` denied. Stop is blocked once. SessionStart adds a note.
"""

from __future__ import annotations

from typing import Any

import trio

import hookd
from hookd import HookContext, HookMatcher, add_context, allow, block, deny, update_input

Input = dict[str, Any]


def command(input_data: Input) -> str:
    return str(input_data["tool_input"].get("command", ""))


async def decide(input_data: Input, tool_use_id: str | None, context: HookContext) -> Any:
    cmd = command(input_data)
    if "allow-me" in cmd:
        return allow("allowed by the daemon")
    if "forbidden" in cmd:
        return deny("forbidden by the daemon")
    if "rewrite-me" in cmd:
        return update_input(
            {**input_data["tool_input"], "command": cmd.replace("rewrite-me", "rewritten")}
        )
    if "ctx-me" in cmd:
        return {**allow(), **add_context("ctx-from-daemon")}
    return None


async def explode_block(input_data: Input, tool_use_id: str | None, context: HookContext) -> Any:
    if "raise-block" in command(input_data):
        raise RuntimeError("boom-block")
    return None


async def explode_continue(input_data: Input, tool_use_id: str | None, context: HookContext) -> Any:
    if "raise-continue" in command(input_data):
        raise RuntimeError("boom-continue")
    return None


async def dawdle(input_data: Input, tool_use_id: str | None, context: HookContext) -> Any:
    if "slow-me" in command(input_data):
        await trio.sleep_forever()
    return None


@hookd.hook("PermissionRequest", matcher="Bash", timeout=5)
async def permit(input_data: Input, tool_use_id: str | None, context: HookContext) -> Any:
    cmd = command(input_data)
    if "perm-allow" in cmd:
        return {"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                       "decision": {"behavior": "allow"}}}  # fmt: skip
    if "perm-deny" in cmd:
        return deny("permission refused by the daemon", event="PermissionRequest")
    return None


@hookd.hook("Stop", timeout=5)
async def keep_going(input_data: Input, tool_use_id: str | None, context: HookContext) -> Any:
    if input_data.get("stop_hook_active"):
        return None
    return block("keep-going-from-daemon")


@hookd.hook("SessionStart", timeout=5)
async def note(input_data: Input, tool_use_id: str | None, context: HookContext) -> Any:
    return add_context("session-note-from-hookd", event="SessionStart")


@hookd.hook("UserPromptSubmit", timeout=5)
async def prompts(input_data: Input, tool_use_id: str | None, context: HookContext) -> Any:
    if "block-this-prompt" in str(input_data.get("prompt")):
        return block("prompt-blocked-by-daemon")
    return None


hooks = {
    "PreToolUse": [
        HookMatcher(matcher="Bash", hooks=[decide], timeout=5),
        HookMatcher(matcher="Bash", hooks=[explode_block], timeout=5, on_failure="block"),
        HookMatcher(matcher="Bash", hooks=[explode_continue], timeout=5, on_failure="continue"),
        HookMatcher(matcher="Bash", hooks=[dawdle], timeout=2, on_failure="block"),
    ],
}
