"""Fault: a hook blocks in sync code: forever in a worker thread, or in a C call on trio."""

from __future__ import annotations

import threading
import time
from typing import Any

import hookd
from hookd import HookContext, HookMatcher
from tests.hooks.faults._healthy import healthy

Input = dict[str, Any]
C_CALL_S = 1.0


def block_forever(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    threading.Event().wait()  # nothing ever sets it; ctx.cancelled is never read


@hookd.runs_on("trio")
async def block_the_loop(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    time.sleep(C_CALL_S)  # one C call on the event loop: nothing can interrupt it
    return hookd.allow("slept")


hooks = {
    "PreToolUse": [
        HookMatcher(matcher="Fault", hooks=[block_forever], timeout=0.5),
        HookMatcher(matcher="FaultCCall", hooks=[block_the_loop], timeout=0.5),
        *healthy(timeout=1),
    ]
}
