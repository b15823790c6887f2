"""Hooks for the testing kit's own tests: one of each kind of answer and failure.

- ``guard`` (PreToolUse Bash, trio): denies ``rm -rf /``, asks for ``sudo``,
  rewrites ``python`` to ``python3``, counts calls in ``context.state``;
- ``slow`` (PreToolUse Write, timeout 5): waits 60 s on trio, so it times out;
- ``broken`` (PreToolUse Edit): raises; ``lenient`` (PreToolUse Read,
  on_failure="continue"): raises too;
- ``bad_output`` (PreToolUse Glob): a misspelled field;
- ``on_asyncio`` (PostToolUse, asyncio) and ``in_thread`` (Stop, a plain def);
- ``rules`` (UserPromptSubmit): context and a system message; ``stop_all``
  (UserPromptSubmit with "halt"): HookAbortError.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import trio

import hookd
from hookd import HookAbortError, HookContext, HookMatcher, add_context, ask, deny, update_input


async def guard(input_data: dict[str, Any], tool_use_id: str | None, context: HookContext) -> Any:
    context.state["guard_calls"] = context.state.get("guard_calls", 0) + 1
    command = input_data["tool_input"].get("command", "")
    if "rm -rf /" in command:
        return deny("recursive delete of /")
    if command.startswith("sudo "):
        return ask("sudo needs a human")
    if command.startswith("python "):
        return update_input({**input_data["tool_input"], "command": "python3 " + command[7:]})
    return None


async def slow(input_data: dict[str, Any], tool_use_id: str | None, context: HookContext) -> Any:
    await trio.sleep(60)
    return None


async def broken(input_data: dict[str, Any], tool_use_id: str | None, context: HookContext) -> Any:
    raise ValueError("the guard crashed")


async def lenient(input_data: dict[str, Any], tool_use_id: str | None, context: HookContext) -> Any:
    raise ValueError("the lenient guard crashed")


async def bad_output(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> Any:
    return {"hookSpecificOutput": {"permisionDecision": "deny"}}


async def on_asyncio(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> Any:
    await asyncio.sleep(0)
    loop = asyncio.get_running_loop()
    return {"systemMessage": f"asyncio loop running: {loop.is_running()}"}


def in_thread(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> Any:
    name = threading.current_thread().name
    return {"decision": "block", "reason": f"not done yet (checked in {name})"}


@hookd.hook("UserPromptSubmit")
async def rules(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> Any:
    if "halt" in input_data["prompt"]:
        raise HookAbortError("halted on request")
    return {**add_context("Run the tests first."), "systemMessage": "rules added"}


hooks = {
    "PreToolUse": [
        HookMatcher(matcher="Bash", hooks=[guard], timeout=10),
        HookMatcher(matcher="Write", hooks=[slow], timeout=5),
        HookMatcher(matcher="Edit", hooks=[broken]),
        HookMatcher(matcher="Read", hooks=[lenient], on_failure="continue"),
        HookMatcher(matcher="Glob", hooks=[bad_output]),
    ],
    "PostToolUse": [HookMatcher(hooks=[on_asyncio])],
    "Stop": [HookMatcher(hooks=[in_thread])],
}
