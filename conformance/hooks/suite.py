"""The hooks behind the conformance cases: one scripted callback, registered many ways.

What a hook does is written in its input, under the extra field ``script``
(inputs accept unknown fields), so each transcript shows the behaviour it tests::

    {"return": {...}}              answer this output (null: answer None)
    {"raise": ["ValueError", "boom"]}
    {"hang": true}                 never answer
    {"sleep": 0.2}                 wait first (seconds)
    {"wait": "g"} / {"open": "g"}  wait until gate "g" is opened / open it
    {"print": "text"}              write to stdout three ways (print, fd 1, a child process)
    {"context": true}              answer the context as ``systemMessage`` JSON
    {"count": "k"}                 add 1 to ``context.state["k"]`` (before any raise);
                                   answer the count
    {"fail_times": 2}              raise RetryableHookError on the first 2 attempts

Ids (registration order; the transcripts rely on them, so add registrations only
as new events at the end of ``hooks``):

=========  =================  ==========================================
hook_1     PreToolUse         default policy (block)
hook_2     PreToolUse         on_failure="continue"
hook_3     PreToolUse         timeout=1 (block)
hook_4     PermissionRequest  default policy (block)
hook_5     UserPromptSubmit   default policy (block)
hook_6     Stop               default policy (continue)
hook_7     Stop               on_failure="block"
hook_8     Stop               timeout=1 (continue)
hook_9     Stop               runner="asyncio"
hook_10    Stop               a plain ``def`` (worker thread), timeout=1
hook_11    Stop               retry: 3 attempts
hook_12    Notification       on_failure="block" (the event cannot block)
hook_13    SessionStart       default policy (continue)
hook_14    PostToolUse        default policy (continue)
hook_15    FutureEvent        an event hookd does not know
=========  =================  ==========================================

``can_use_tool`` allows with the input unchanged, and denies the tool ``Deny``.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import time
from typing import Any

import trio

import hookd
from hookd import (
    HookAbortError,
    HookContext,
    HookMatcher,
    RetryableHookError,
    RetryPolicy,
    runs_on,
)

Input = dict[str, Any]

_gates: dict[str, trio.Event] = {}

_RAISABLE: dict[str, type[BaseException]] = {
    "ValueError": ValueError,
    "RuntimeError": RuntimeError,
    "SystemExit": SystemExit,
    "KeyboardInterrupt": KeyboardInterrupt,
    "RecursionError": RecursionError,
    "HookAbortError": HookAbortError,
}


def _gate(name: str) -> trio.Event:
    return _gates.setdefault(name, trio.Event())


def _raise(spec: list[str]) -> None:
    kind, *text = spec
    raise _RAISABLE[kind](*text)


def _context(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    seen = {
        "request_id": ctx.request_id,
        "callback_id": ctx.callback_id,
        "event": ctx.event,
        "tool_use_id": tool_use_id,
        "timeout_s": ctx.timeout_s,
        "attempt": ctx.attempt,
        "signal": ctx["signal"],
        "input_keys": sorted(input_data),
    }
    return {"systemMessage": json.dumps(seen, sort_keys=True)}


async def _print(text: str) -> None:
    print(text)
    os.write(1, f"{text} (fd 1)\n".encode())
    await trio.run_process([sys.executable, "-c", f"print({text!r} + ' (child)')"])


def _count(script: dict[str, Any], ctx: HookContext) -> str | None:
    key = script.get("count")
    if key is None:
        return None
    ctx.state[key] = ctx.state.get(key, 0) + 1
    return f"{key}={ctx.state[key]}"


def _answer(
    script: dict[str, Any], input_data: Input, tool_use_id: str | None, ctx: HookContext
) -> Any:
    counted = _count(script, ctx)
    if "raise" in script:
        _raise(script["raise"])
    if counted is not None:
        return {"systemMessage": counted}
    if script.get("context"):
        return _context(input_data, tool_use_id, ctx)
    if ctx.attempt <= script.get("fail_times", 0):
        raise RetryableHookError(f"attempt {ctx.attempt} failed")
    if "fail_times" in script:
        return {"systemMessage": f"succeeded on attempt {ctx.attempt}"}
    return script.get("return", {})


@runs_on("trio")  # the module imports asyncio: without this, it would run there
async def scripted(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    """The trio hook: acts out ``input_data["script"]``."""
    script: dict[str, Any] = input_data.get("script", {})
    if script.get("hang"):
        await trio.sleep_forever()
    await trio.sleep(script.get("sleep", 0))
    if "wait" in script:
        await _gate(script["wait"]).wait()
    if "open" in script:
        _gate(script["open"]).set()
    if "print" in script:
        await _print(script["print"])
    return _answer(script, input_data, tool_use_id, ctx)


@runs_on("asyncio")
async def scripted_asyncio(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    """Runs on hookd's asyncio loop: ``asyncio.sleep`` works here, and only here."""
    await asyncio.sleep(input_data.get("script", {}).get("sleep", 0))
    loop = type(asyncio.get_running_loop()).__name__
    return {"systemMessage": f"ran on an asyncio loop ({loop.endswith('EventLoop')})"}


def scripted_sync(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    """A plain function: runs in a worker thread; ``hang`` polls ``ctx.cancelled``."""
    script: dict[str, Any] = input_data.get("script", {})
    if script.get("hang"):
        while not ctx.cancelled:
            time.sleep(0.01)
        return {}
    worker = threading.current_thread() is not threading.main_thread()
    return {"systemMessage": f"ran in a worker thread ({worker})"}


def can_use_tool(tool_name: str, tool_input: Input, context: Any) -> Any:
    if tool_name == "Deny":
        return {"behavior": "deny", "message": "not this tool"}
    return {"behavior": "allow", "updatedInput": tool_input}


hooks = {
    "PreToolUse": [
        HookMatcher(hooks=[scripted]),
        HookMatcher(hooks=[scripted], on_failure="continue"),
        HookMatcher(hooks=[scripted], timeout=1),
    ],
    "PermissionRequest": [HookMatcher(hooks=[scripted])],
    "UserPromptSubmit": [HookMatcher(hooks=[scripted])],
    "Stop": [
        HookMatcher(hooks=[scripted]),
        HookMatcher(hooks=[scripted], on_failure="block"),
        HookMatcher(hooks=[scripted], timeout=1),
        HookMatcher(hooks=[scripted_asyncio]),
        HookMatcher(hooks=[scripted_sync], timeout=1),
        HookMatcher(hooks=[scripted], retry=RetryPolicy(attempts=3, backoff_s=0.01)),
    ],
    "Notification": [HookMatcher(hooks=[scripted], on_failure="block")],
    "SessionStart": [HookMatcher(hooks=[scripted])],
    "PostToolUse": [HookMatcher(hooks=[scripted])],
    hookd.custom_event("FutureEvent"): [HookMatcher(hooks=[scripted])],
}
