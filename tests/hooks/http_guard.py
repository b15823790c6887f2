"""Hooks for the HTTP transport tests: each PreToolUse Bash command picks a behaviour.

``rm ...`` deny; ``rewrite ...`` allow with an ``updatedInput``; ``context ...`` allow with
``additionalContext``; ``raise ...`` raise (PreToolUse blocks by default); ``hang ...``
never return (timeout 1 s); ``count ...`` allow naming how many calls this session made;
anything else allow. For tool ``Slow`` (timeout 600 s): ``wait NAME`` prints
``waiting NAME`` on stderr and waits until a later ``open NAME`` arrives.
PostToolUse raises on ``raise ...`` under ``continue``; UserPromptSubmit blocks prompts
that contain ``forbidden`` and adds context to the others.
"""

from __future__ import annotations

import sys
from typing import Any

import trio

from hookd import HookContext, HookMatcher, add_context, allow, block, deny

_gates: dict[str, trio.Event] = {}


def _gate(name: str) -> trio.Event:
    return _gates.setdefault(name, trio.Event())


async def guard(input_data: dict[str, Any], tool_use_id: str | None, context: HookContext) -> Any:
    command = str(input_data["tool_input"].get("command", ""))
    verb, _, rest = command.partition(" ")
    context.state["calls"] = context.state.get("calls", 0) + 1
    match verb:
        case "rm":
            return deny("no rm")
        case "rewrite":
            return {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "allow",
                    "updatedInput": {"command": f"echo {rest}"},
                }
            }
        case "context":
            out = allow("fine")
            out["hookSpecificOutput"]["additionalContext"] = f"remember {rest}"
            return out
        case "raise":
            raise RuntimeError(f"guard broke on {rest}")
        case "hang":
            await trio.sleep_forever()
        case "count":
            return allow(f"call {context.state['calls']}")
    return allow("fine")


async def slow(input_data: dict[str, Any], tool_use_id: str | None, context: HookContext) -> Any:
    verb, _, name = str(input_data["tool_input"].get("command", "")).partition(" ")
    if verb == "wait":
        print(f"waiting {name}", file=sys.stderr, flush=True)
        await _gate(name).wait()
        return allow(f"waited for {name}")
    _gate(name).set()
    return allow(f"opened {name}")


async def after(input_data: dict[str, Any], tool_use_id: str | None, context: HookContext) -> Any:
    if str(input_data["tool_input"].get("command", "")).startswith("raise"):
        raise ValueError("post hook broke")
    return add_context("after ran", event="PostToolUse")


async def prompt(input_data: dict[str, Any], tool_use_id: str | None, context: HookContext) -> Any:
    if "forbidden" in input_data["prompt"]:
        return block("that prompt is forbidden")
    return add_context("be brief", event="UserPromptSubmit")


hooks = {
    "PreToolUse": [
        HookMatcher(matcher="Bash", hooks=[guard], timeout=1.5),
        HookMatcher(matcher="Slow", hooks=[slow], timeout=600),
    ],
    "PostToolUse": [HookMatcher(matcher="Bash", hooks=[after], on_failure="continue")],
    "UserPromptSubmit": [HookMatcher(hooks=[prompt])],
}
