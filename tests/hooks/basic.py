"""Hooks used by the server and process tests: one per behaviour under test."""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Any

import trio

import hookd
from hookd import HookAbortError, HookContext, HookMatcher, allow, deny

Input = dict[str, Any]


async def allow_all(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    return allow("ok")


async def slow(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    await trio.sleep(float(input_data.get("sleep_s", 1.0)))
    return {"systemMessage": f"slept {input_data.get('sleep_s')}"}


async def hang(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    await trio.sleep_forever()


async def raises(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    raise ValueError(input_data.get("message", "boom"))


async def prints(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    print("this must not reach stdout")
    sys.stdout.write("nor this\n")
    sys.stdout.flush()
    return {}


async def abort(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    raise HookAbortError("policy violation")


def sync_hook(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    time.sleep(0.01)
    return {"systemMessage": "from a thread"}


async def asyncio_hook(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    await asyncio.sleep(0.01)
    loop = asyncio.get_running_loop()
    return {"systemMessage": f"asyncio loop running: {loop.is_running()}"}


async def stop_ok(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    return None


async def stop_raises(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    raise RuntimeError("stop hook broke")


async def notify_raises(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    raise RuntimeError("")


async def bad_output(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permisionDecision": "deny"}}


hookd.runs_on("trio")(slow)
hookd.runs_on("asyncio")(asyncio_hook)


@hookd.hook("SessionStart")
async def counter(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    ctx.state["n"] = ctx.state.get("n", 0) + 1
    return {"systemMessage": f"seen {ctx.state['n']}"}


hooks = {
    "PreToolUse": [
        HookMatcher(matcher="Bash", hooks=[allow_all]),  # hook_2
        HookMatcher(matcher="Slow", hooks=[slow], timeout=5),  # hook_3
        HookMatcher(matcher="Hang", hooks=[hang], timeout=2),  # hook_4
        HookMatcher(matcher="Raise", hooks=[raises]),  # hook_5 (block)
        HookMatcher(matcher="Raise2", hooks=[raises], on_failure="continue"),  # hook_6
        HookMatcher(matcher="Print", hooks=[prints]),  # hook_7
        HookMatcher(matcher="Abort", hooks=[abort]),  # hook_8
        HookMatcher(matcher="Sync", hooks=[sync_hook]),  # hook_9
        HookMatcher(matcher="Aio", hooks=[asyncio_hook]),  # hook_10
        HookMatcher(matcher="Bad", hooks=[bad_output]),  # hook_11
    ],
    "Stop": [HookMatcher(hooks=[stop_ok, stop_raises])],  # hook_12, hook_13
    "Notification": [HookMatcher(hooks=[notify_raises], on_failure="block")],  # hook_14
}


def deny_all(tool_name: str, tool_input: Input, ctx: Any) -> Any:
    return deny("no")
