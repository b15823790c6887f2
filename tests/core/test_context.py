"""The context a callback is given: ids, deadline, cancellation, the SDK's mapping view."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping

import pytest

from hookd.core.context import HookContext


def _ctx(timeout_s: float = 30.0) -> HookContext:
    return HookContext(
        request_id="r1",
        callback_id="hook_1",
        event="Stop",
        tool_use_id=None,
        timeout_s=timeout_s,
        state={"n": 1},
    )


@pytest.mark.req("R-071")
def test_it_carries_the_call_and_the_deadline_hookd_enforces() -> None:
    """The deadline shown is the enforced one: the timeout less hookd's margin."""
    before = time.monotonic()
    ctx = _ctx(30)
    assert (ctx.request_id, ctx.callback_id, ctx.event, ctx.attempt) == ("r1", "hook_1", "Stop", 1)
    assert ctx.state == {"n": 1}
    assert before + 29.5 <= ctx.deadline <= time.monotonic() + 29.5
    assert 0 < ctx.time_left() <= 29.5
    assert _ctx(1).time_left() <= 0.9


def test_a_past_deadline_leaves_no_time() -> None:
    assert _ctx(0).time_left() == 0.0


def test_cancel_wakes_a_sync_callback_waiting_in_a_thread() -> None:
    ctx = _ctx()
    woke: list[bool] = []
    waiter = threading.Thread(target=lambda: woke.append(ctx.wait_cancelled(10)))
    waiter.start()
    assert not ctx.cancelled
    ctx.cancel()
    waiter.join(10)
    assert woke == [True] and ctx.cancelled
    assert ctx.wait_cancelled(0)  # already cancelled: returns at once


def test_wait_cancelled_times_out_false() -> None:
    assert _ctx().wait_cancelled(0) is False


@pytest.mark.req("R-074")
def test_it_reads_as_the_sdk_mapping() -> None:
    ctx = _ctx()
    assert ctx["signal"] is None and ctx.signal is None
    assert ctx.get("signal", "x") is None
    assert ctx.get("other", "x") == "x"
    with pytest.raises(KeyError):
        ctx["other"]
    assert isinstance(ctx, Mapping) and "signal" in ctx and len(ctx) == 1
    assert dict(ctx) == {"signal": None} and list(ctx.items()) == [("signal", None)]
    assert "hook_1" in repr(ctx)
