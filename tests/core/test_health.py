"""Hook health's bookkeeping, on explicit monotonic times: per-session records, the window,
the doubling cool-down, forgiveness, the bound on records."""

from __future__ import annotations

import pytest

from hookd.core.health import MAX_RECORDS, Health, Key, Quarantine

LAST = "timed out: no answer within 0.45s"
A: Key = ("claude", "session-a", "hook_1")
B: Key = ("claude", "session-b", "hook_1")


def fail(health: Health, key: Key, n: int, now: float, step: float = 1.0) -> None:
    for i in range(n):
        health.failed(key, LAST, now + i * step)


@pytest.mark.req("R-L30")
def test_timeouts_outside_the_window_do_not_count() -> None:
    health = Health(Quarantine(after=3, window_s=10))
    fail(health, A, 2, 0.0)
    assert health.failed(A, LAST, 11.0) is None  # the first two have left the window
    assert health.leash(A, 11.5) is None
    assert health.failed(A, LAST, 12.0) is None
    sick = health.failed(A, LAST, 13.0)
    assert sick is not None and health.leash(A, 14.0) is sick
    assert health.refusal(sick, 1.0, 14.0) == (
        "quarantined after 3 timeouts in 10s (last: timed out: no answer within 0.45s): "
        "no answer within its 1s leash; full timeout again in 29s"
    )


@pytest.mark.req("R-L38")
def test_one_sessions_timeouts_leave_another_session_alone() -> None:
    health = Health(Quarantine(after=2))
    fail(health, A, 2, 0.0)
    assert health.leash(A, 2.0) is not None
    assert health.leash(B, 2.0) is None
    assert health.leash(("codex", "session-a", "hook_1"), 2.0) is None  # another agent's
    health.passed(B, 2.0)
    assert health.leash(A, 2.0) is not None


@pytest.mark.req("R-L32")
def test_each_failed_retry_doubles_the_cool_down_up_to_the_limit() -> None:
    health = Health(Quarantine(after=1, cooldown_s=100, max_cooldown_s=300))
    now = 0.0
    health.failed(A, LAST, now)
    lengths = []
    for _ in range(4):
        sick = health[A]
        lengths.append(sick.until - now)
        now = sick.until
        assert health.leash(A, now - 0.01) is not None
        assert health.leash(A, now) is None  # over: this call gets its full timeout
        health.failed(A, LAST, now)
    assert lengths == [100, 200, 300, 300]
    assert health.quarantined(now + 1) == {A: health[A]}
    health.passed(A, now + 1)  # an answer on the leash does not end the cool-down
    assert health.leash(A, now + 1) is not None
    health.passed(A, now + 301)
    assert not health and health.leash(A, now + 302) is None


@pytest.mark.req("R-L33")
def test_after_zero_keeps_no_record_and_bad_variables_are_named() -> None:
    health = Health(Quarantine(after=0))
    fail(health, A, 10, 0.0)
    assert not health
    assert Quarantine.from_env({"HOOKD_QUARANTINE_WINDOW": "5"}).window_s == 5
    assert Quarantine.from_env({"HOOKD_QUARANTINE_LEASH": "0.25"}).leash_s == 0.25
    said = r"\$HOOKD_QUARANTINE_COOLDOWN: must be a number of seconds above 0"
    with pytest.raises(ValueError, match=said):
        Quarantine.from_env({"HOOKD_QUARANTINE_COOLDOWN": "0"})
    with pytest.raises(ValueError, match=said):
        Quarantine.from_env({"HOOKD_QUARANTINE_COOLDOWN": "nan"})


@pytest.mark.req("R-L38")
def test_records_are_bounded_the_oldest_going_first() -> None:
    health = Health(Quarantine(after=5))
    for n in range(MAX_RECORDS + 10):
        health.failed(("claude", f"s{n}", "hook_1"), LAST, float(n))
    assert len(health) == MAX_RECORDS
    assert ("claude", "s0", "hook_1") not in set(health)
    assert ("claude", f"s{MAX_RECORDS + 9}", "hook_1") in set(health)
