"""The executor on trio's fake clock: timeouts, exceptions, runners, retries."""

from __future__ import annotations

import threading
from typing import Any

import pytest
import trio
import trio.testing

import hookd
from hookd.core.context import HookContext
from hookd.core.registry import Registration, Registry, RetryPolicy
from hookd.engine.executor import Executor, effective_timeout


def _reg(
    cb: Any, *, event: str = "Stop", timeout: float | None = None, retry: RetryPolicy | None = None
) -> Registration:
    return Registry().add(event, cb, timeout=timeout, retry=retry)


def _ctx(reg: Registration) -> HookContext:
    return HookContext(
        request_id="r",
        callback_id=reg.callback_id,
        event=reg.event,
        tool_use_id=None,
        timeout_s=reg.timeout_s,
        state={},
    )


async def _run(cb: Any, **kw: Any) -> Any:
    reg = _reg(cb, **kw)
    return await Executor(validate=False).run(reg, {"k": 1}, None, _ctx(reg))


@pytest.mark.req("R-071")
def test_effective_timeout_answers_before_the_cli_does() -> None:
    assert effective_timeout(30) == 29.5
    assert effective_timeout(2) == pytest.approx(1.8)
    assert 0 < effective_timeout(0.1) < 0.1


@pytest.mark.req("R-071")
async def test_default_timeout_is_30s_on_the_fake_clock(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async def hang(i: Any, t: Any, c: Any) -> None:
        await trio.sleep_forever()

    start = trio.current_time()
    outcome = await _run(hang)
    assert outcome.kind == "timeout"
    assert trio.current_time() - start == pytest.approx(29.5, abs=0.05)


@pytest.mark.req("R-071")
async def test_matcher_timeout_overrides(autojump_clock: trio.testing.MockClock) -> None:
    async def hang(i: Any, t: Any, c: Any) -> None:
        await trio.sleep(100)

    start = trio.current_time()
    assert (await _run(hang, timeout=5)).kind == "timeout"
    assert trio.current_time() - start == pytest.approx(4.5, abs=0.05)


@pytest.mark.req("R-072")
@pytest.mark.parametrize(
    ("exc", "message"),
    [
        (ValueError("bad value"), "bad value"),
        (ValueError(), "ValueError"),
        (SystemExit(3), "3"),
        (KeyboardInterrupt(), "KeyboardInterrupt"),
        (RecursionError("deep"), "deep"),
    ],
)
async def test_every_exception_is_recovered(exc: BaseException, message: str) -> None:
    async def boom(i: Any, t: Any, c: Any) -> None:
        raise exc

    outcome = await _run(boom)
    assert (outcome.kind, outcome.message) == ("exception", message)


@pytest.mark.req("R-031", "R-083")
async def test_abort_and_outputs() -> None:
    async def abort(i: Any, t: Any, c: Any) -> None:
        raise hookd.HookAbortError("stop now")

    async def renamed(i: Any, t: Any, c: Any) -> dict[str, Any]:
        return {"continue_": False, "async_": True, "hookSpecificOutput": {"continue_": 1}}

    async def not_a_dict(i: Any, t: Any, c: Any) -> list[int]:
        return [1]

    assert (await _run(abort)).message == "stop now"
    out = (await _run(renamed)).output
    assert out == {"continue": False, "async": True, "hookSpecificOutput": {"continue_": 1}}
    bad = await _run(not_a_dict)
    assert bad.kind == "invalid_output" and "got list" in bad.message


@pytest.mark.req("R-073")
async def test_sync_hooks_run_in_a_worker_thread() -> None:
    seen: list[bool] = []

    def sync(i: Any, t: Any, c: Any) -> dict[str, Any]:
        seen.append(threading.current_thread() is threading.main_thread())
        return {"systemMessage": "ok"}

    assert (await _run(sync)).output == {"systemMessage": "ok"}
    assert seen == [False]


@pytest.mark.req("R-073", "R-074")
async def test_hung_sync_hook_times_out_and_sees_cancelled() -> None:
    release = threading.Event()
    noticed: list[bool] = []

    def stuck(i: Any, t: Any, c: HookContext) -> None:
        noticed.append(c.wait_cancelled(10))
        release.set()

    assert (await _run(stuck, timeout=0.2)).kind == "timeout"
    assert await trio.to_thread.run_sync(release.wait, 10)
    assert noticed == [True]


@pytest.mark.req("R-073")
async def test_asyncio_hooks_run_on_an_asyncio_loop() -> None:
    from tests.hooks.basic import asyncio_hook

    outcome = await _run(asyncio_hook)
    assert outcome.output == {"systemMessage": "asyncio loop running: True"}


@pytest.mark.req("R-073")
async def test_asyncio_hook_timeout_cancels_the_asyncio_task() -> None:
    import asyncio

    cancelled = threading.Event()

    @hookd.runs_on("asyncio")
    async def slow(i: Any, t: Any, c: Any) -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    assert (await _run(slow, timeout=0.2)).kind == "timeout"
    assert await trio.to_thread.run_sync(cancelled.wait, 5)


@pytest.mark.req("R-075")
async def test_retries_on_the_fake_clock(autojump_clock: trio.testing.MockClock) -> None:
    attempts: list[int] = []

    async def flaky(i: Any, t: Any, c: HookContext) -> dict[str, Any]:
        attempts.append(c.attempt)
        if len(attempts) < 3:
            raise hookd.RetryableHookError("try again")
        return {"systemMessage": f"attempt {c.attempt}"}

    start = trio.current_time()
    outcome = await _run(flaky, retry=RetryPolicy(attempts=5, backoff_s=1, multiplier=2))
    assert outcome.output == {"systemMessage": "attempt 3"}
    assert attempts == [1, 2, 3]
    assert trio.current_time() - start == pytest.approx(1 + 2)


@pytest.mark.req("R-075")
async def test_retries_stop_at_the_deadline(autojump_clock: trio.testing.MockClock) -> None:
    async def always(i: Any, t: Any, c: Any) -> None:
        raise hookd.RetryableHookError("still down")

    policy = RetryPolicy(attempts=100, backoff_s=1, multiplier=1)
    assert (await _run(always, timeout=5, retry=policy)).kind == "timeout"
    exhausted = await _run(always, retry=RetryPolicy(attempts=2, backoff_s=0))
    assert (exhausted.kind, exhausted.message) == ("exception", "still down")


@pytest.mark.req("R-075")
async def test_other_exceptions_are_not_retried() -> None:
    calls: list[int] = []

    async def broken(i: Any, t: Any, c: Any) -> None:
        calls.append(1)
        raise ValueError("not retryable")

    outcome = await _run(broken, retry=RetryPolicy(attempts=5, backoff_s=0))
    assert outcome.kind == "exception" and calls == [1]


@pytest.mark.req("R-076")
async def test_busy_looping_async_hook_is_interrupted_and_answered_as_timeout() -> None:
    import time

    spun_out: list[bool] = []

    async def spin(i: Any, t: Any, c: Any) -> None:
        end = time.monotonic() + 30
        while time.monotonic() < end:  # never awaits: trio alone could not stop this
            pass
        spun_out.append(True)

    outcome = await _run(spin, timeout=0.5)
    assert outcome.kind == "timeout" and "interrupted" in outcome.message
    assert spun_out == []  # interrupted inside the loop, not after its 30 s
    # the event loop is healthy afterwards
    await trio.sleep(0.01)
    assert (await _run(_quick)).output == {"systemMessage": "quick"}


#: A process whose first hook ran on a trio loop in another thread (the kit's ``fire_sync``
#: under asyncio does that), then a busy-looping hook on the main thread's loop.
_TWO_LOOPS = """
import threading, time, trio
from hookd.core.context import HookContext
from hookd.core.registry import Registry
from hookd.engine.executor import Executor

async def quick(i, t, c):
    return None

async def spin(i, t, c):
    end = time.monotonic() + 20
    while time.monotonic() < end:
        pass

async def run(fn, timeout):
    reg = Registry().add("Stop", fn, timeout=timeout)
    ctx = HookContext(request_id="r", callback_id=reg.callback_id, event="Stop",
                      tool_use_id=None, timeout_s=timeout, state={})
    return await Executor(validate=False).run(reg, {}, None, ctx)

other = threading.Thread(target=trio.run, args=(run, quick, 5.0))
other.start()
other.join()
started = time.monotonic()
outcome = trio.run(run, spin, 0.5)
print(outcome.kind, round(time.monotonic() - started, 1))
"""


@pytest.mark.req("R-076")
def test_a_busy_loop_is_interrupted_on_whichever_thread_runs_the_loop() -> None:
    """The watchdog interrupts the thread the step runs on, not the first loop it saw."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _TWO_LOOPS], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    kind, seconds = done.stdout.splitlines()[-1].split()  # the last line: a log line may come first
    assert kind == "timeout" and float(seconds) < 10, done.stdout


async def _quick(i: Any, t: Any, c: Any) -> dict[str, Any]:
    return {"systemMessage": "quick"}
