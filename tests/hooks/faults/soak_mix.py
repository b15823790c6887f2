"""The soak's hooks: healthy hooks on every runner, and the faults of the matrix.

Faults that hookd can only survive by leaking (a thread blocked for good, a
non-daemon thread that never ends, a spinning asyncio hook that keeps its loop)
run here in bounded form: they outlive their deadline, then end on their own,
so what the soak measures is hookd, not the leak. Sizes are scaled down
(1 MiB printed, 2 MB returned); the matrix tries the full ones.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import trio

import hookd
from hookd import HookContext, HookMatcher
from tests.hooks.faults import raises, raises_empty, recursion, sys_exit, unserialisable
from tests.hooks.faults._healthy import ok, ok_in_thread, ok_on_asyncio
from tests.hooks.faults.busy_loop import spin_on_trio
from tests.hooks.faults.keyboard_interrupt import interrupt_in_thread, interrupt_on_trio

Input = dict[str, Any]
FAULT_TIMEOUT_S = 0.2
OUTPUT_BYTES = 1_000_000  # large, yet under the 1 MiB an answer may take


def block_past_deadline(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    time.sleep(3 * FAULT_TIMEOUT_S)  # abandoned at its deadline; the thread ends later


@hookd.runs_on("trio")
async def prints(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    print("p" * (1 << 20))
    return hookd.allow("printed")


@hookd.runs_on("trio")
async def big_output(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    return hookd.allow("x" * OUTPUT_BYTES)


@hookd.runs_on("trio")
async def leaks_thread(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    threading.Thread(target=time.sleep, args=(FAULT_TIMEOUT_S,), daemon=False).start()
    return hookd.allow("leaked")


@hookd.runs_on("trio")
async def hang(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    await trio.sleep_forever()


def _fault(name: str, callback: Any, timeout: float = 5) -> HookMatcher:
    return HookMatcher(matcher=name, hooks=[callback], timeout=timeout)


hooks = {
    "PreToolUse": [
        _fault("Ok", ok),
        _fault("OkThread", ok_in_thread),
        _fault("OkAsyncio", ok_on_asyncio),
        _fault("Hang", hang, timeout=60),
        _fault("Raise", raises.raise_on_trio),
        _fault("RaiseThread", raises.raise_in_thread),
        _fault("RaiseAsyncio", raises.raise_on_asyncio),
        _fault("RaiseEmpty", raises_empty.raise_empty),
        _fault("Exit", sys_exit.exit_on_trio),
        _fault("ExitThread", sys_exit.exit_in_thread),
        _fault("Interrupt", interrupt_on_trio),
        _fault("InterruptThread", interrupt_in_thread),
        _fault("Recurse", recursion.recurse_on_trio),
        _fault("RecurseThread", recursion.recurse_in_thread),
        _fault("Block", block_past_deadline, timeout=FAULT_TIMEOUT_S),
        _fault("Spin", spin_on_trio, timeout=FAULT_TIMEOUT_S),
        _fault("Print", prints),
        _fault("Unserialisable", unserialisable.returning("Object")),
        _fault("BigOutput", big_output),
        _fault("LeakThread", leaks_thread),
    ]
}
