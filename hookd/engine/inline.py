"""One hook of a dispatch, run in the caller's own task when it can be.

A trio hook without retries runs inline (:meth:`Executor.start_inline`): most
never yield to trio, and their outcome comes back without a cancel scope or a
task switch. The cancel scope around it gets a deadline only when the hook
yields (the same deadline :meth:`Executor.run` gives it), which costs less than
a scope with a deadline for every call. Every other hook
goes through :meth:`Executor.run`. Either way the outcome is the same.
"""

from __future__ import annotations

import time
from typing import Any

import msgspec
import trio

from hookd.core.context import HookContext
from hookd.core.policy import Outcome
from hookd.core.registry import Registration
from hookd.engine.executor import Executor, Paused, effective_timeout

__all__ = ["run_hook"]


async def run_hook(
    executor: Executor,
    reg: Registration,
    input_data: dict[str, Any],
    tool_use_id: str | None,
    ctx: HookContext,
) -> Outcome:
    """How ``reg`` ended on ``input_data``; raises only trio's cancellation, like ``run``."""
    if reg.runner != "trio" or reg.retry is not None:
        return await executor.run(reg, input_data, tool_use_id, ctx)
    if reg.input_type is not None:  # an input that does not convert escapes, as from run()
        msgspec.convert(input_data, reg.input_type)
    arrived, started = time.monotonic(), trio.current_time()
    # the scope is entered first: a hook that yields has opened its own scopes inside it
    with trio.CancelScope() as scope:
        outcome = executor.start_inline(reg, input_data, tool_use_id, ctx, arrived=arrived)
        if not isinstance(outcome, Paused):
            return outcome
        scope.deadline = started + effective_timeout(reg.timeout_s)
        return await executor.finish_inline(reg, ctx, outcome)
    return executor.timed_out(reg, ctx)  # the scope ran out: the hook's deadline passed
