"""Hook health's bookkeeping, on explicit monotonic times: the window, the doubling cool-down,
forgiveness."""

from __future__ import annotations

import pytest

from hookd.core.health import Health, Quarantine

LAST = "raised an exception: boom"


def fail(health: Health, n: int, now: float, step: float = 1.0) -> None:
    for i in range(n):
        health.failed("hook_1", LAST, now + i * step)


@pytest.mark.req("R-L30")
def test_failures_outside_the_window_do_not_count() -> None:
    health = Health(Quarantine(after=3, window_s=10))
    fail(health, 2, 0.0)
    assert health.failed("hook_1", LAST, 11.0) is None  # the first two have left the window
    assert health.refusal("hook_1", 11.5) is None
    assert health.failed("hook_1", LAST, 12.0) is None
    assert health.failed("hook_1", LAST, 13.0) is not None
    assert health.refusal("hook_1", 14.0) == (
        "quarantined after 3 failures in 10s (last: raised an exception: boom); retried in 29s"
    )


@pytest.mark.req("R-L32")
def test_each_failed_retry_doubles_the_cool_down_up_to_the_limit() -> None:
    health = Health(Quarantine(after=1, cooldown_s=100, max_cooldown_s=300))
    now = 0.0
    health.failed("hook_1", LAST, now)
    lengths = []
    for _ in range(4):
        sick = health["hook_1"]
        lengths.append(sick.until - now)
        now = sick.until
        assert health.refusal("hook_1", now - 0.01) is not None
        assert health.refusal("hook_1", now) is None  # over: this call runs
        health.failed("hook_1", LAST, now)
    assert lengths == [100, 200, 300, 300]
    assert health.quarantined(now + 1) == {"hook_1": health["hook_1"]}
    health.passed("hook_1")
    assert not health and health.refusal("hook_1", now + 1) is None


@pytest.mark.req("R-L33")
def test_after_zero_keeps_no_record_and_bad_variables_are_named() -> None:
    health = Health(Quarantine(after=0))
    fail(health, 10, 0.0)
    assert not health
    assert Quarantine.from_env({"HOOKD_QUARANTINE_WINDOW": "5"}).window_s == 5
    with pytest.raises(ValueError, match=r"\$HOOKD_QUARANTINE_COOLDOWN: must be positive"):
        Quarantine.from_env({"HOOKD_QUARANTINE_COOLDOWN": "0"})
