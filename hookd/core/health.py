"""Hook health: a hook that keeps failing is quarantined for a while instead of run.

A failure is an ``exception``, a ``timeout`` or an ``invalid_output`` (never a
deliberate deny or abort). :data:`QUARANTINE_AFTER` failures within
:data:`QUARANTINE_WINDOW_S` seconds quarantine the hook: until its cool-down
ends, its calls are answered at once under its failure policy, without running
it. The first call after the cool-down runs it for real: a success clears its
record, a failure quarantines it again for twice as long (up to
:data:`MAX_COOLDOWN_S`).

There is no timer: each call compares ``time.monotonic()`` with the record's
end. Records live on the registry (:attr:`Registry.health`), so a reload
starts every hook clean. A healthy server holds no record at all: the handler
asks only whether the mapping is empty.
"""

from __future__ import annotations

import collections
import os
import time
from collections.abc import Mapping
from typing import Final

import msgspec

__all__ = [
    "AFTER_ENV",
    "COOLDOWN_ENV",
    "MAX_COOLDOWN_S",
    "QUARANTINE_AFTER",
    "QUARANTINE_COOLDOWN_S",
    "QUARANTINE_WINDOW_S",
    "WINDOW_ENV",
    "Health",
    "Quarantine",
    "Sick",
]

#: Failures within the window that quarantine a hook (0: never).
QUARANTINE_AFTER: Final = 5
#: Seconds the failures are counted over.
QUARANTINE_WINDOW_S: Final = 60.0
#: Seconds of the first quarantine; each failed retry doubles it.
QUARANTINE_COOLDOWN_S: Final = 30.0
#: The longest cool-down.
MAX_COOLDOWN_S: Final = 600.0
#: Environment defaults of ``--quarantine-after``, ``-window`` and ``-cooldown``.
AFTER_ENV: Final = "HOOKD_QUARANTINE_AFTER"
WINDOW_ENV: Final = "HOOKD_QUARANTINE_WINDOW"
COOLDOWN_ENV: Final = "HOOKD_QUARANTINE_COOLDOWN"


class Quarantine(msgspec.Struct, frozen=True):
    """When a failing hook is quarantined, and for how long (seconds)."""

    after: int = QUARANTINE_AFTER
    window_s: float = QUARANTINE_WINDOW_S
    cooldown_s: float = QUARANTINE_COOLDOWN_S
    max_cooldown_s: float = MAX_COOLDOWN_S

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Quarantine:
        """The defaults, as the ``HOOKD_QUARANTINE_*`` variables change them.

        Raises ValueError naming the variable when one is not a number."""
        env = os.environ if environ is None else environ
        after = _number(env, AFTER_ENV, QUARANTINE_AFTER, whole=True)
        window_s = _number(env, WINDOW_ENV, QUARANTINE_WINDOW_S)
        cooldown_s = _number(env, COOLDOWN_ENV, QUARANTINE_COOLDOWN_S)
        return cls(int(after), window_s, cooldown_s, max(MAX_COOLDOWN_S, cooldown_s))


def _number(env: Mapping[str, str], name: str, default: float, *, whole: bool = False) -> float:
    text = env.get(name, "")
    if not text:
        return default
    try:
        value = int(text) if whole else float(text)
    except ValueError:
        raise ValueError(f"${name}: not a {'whole ' if whole else ''}number: {text!r}") from None
    if value < 0 or (value == 0 and not whole):
        raise ValueError(f"${name}: must be {'0 or more' if whole else 'positive'}: {text!r}")
    return value


class Sick:
    """One hook's recent failures, and its quarantine when it is in one."""

    __slots__ = ("cooldown_s", "failures", "last", "reason", "retrying", "until")

    def __init__(self, cooldown_s: float) -> None:
        self.failures: collections.deque[float] = collections.deque()
        self.cooldown_s = cooldown_s  # the next quarantine's length
        self.until = 0.0  # monotonic end of the quarantine; 0: not quarantined
        self.retrying = False  # the cool-down ended: the calls since run for real
        self.last = ""  # the last failure, as the failure policy words it
        self.reason = ""  # why it is quarantined: "after 5 failures in 60s"


class Health(dict[str, Sick]):
    """The hooks of one registry that failed lately, by callback id (empty when all is well)."""

    def __init__(self, policy: Quarantine | None = None) -> None:
        super().__init__()
        self.policy = policy if policy is not None else Quarantine()

    def refusal(self, callback_id: str, now: float | None = None) -> str | None:
        """Why ``callback_id`` is not run now (``quarantined after ...``), or None."""
        sick = self.get(callback_id)
        if sick is None or not sick.until:
            return None
        now = time.monotonic() if now is None else now
        left_s = sick.until - now
        if left_s <= 0:  # the cool-down is over: this call runs for real
            sick.until, sick.retrying = 0.0, True
            return None
        return f"quarantined {sick.reason} (last: {sick.last}); retried in {_seconds(left_s)}"

    def failed(self, callback_id: str, last: str, now: float | None = None) -> Sick | None:
        """Count one failure of ``callback_id`` (``last`` words it); its record when this
        failure quarantines it."""
        policy = self.policy
        if policy.after <= 0:
            return None
        now = time.monotonic() if now is None else now
        sick = self.get(callback_id)
        if sick is None:
            sick = self[callback_id] = Sick(policy.cooldown_s)
        sick.last = last
        failures = sick.failures
        failures.append(now)
        if sick.retrying:  # the retry after a cool-down failed: twice as long this time
            sick.cooldown_s = min(sick.cooldown_s * 2, policy.max_cooldown_s)
            sick.reason = "again: its retry failed"
            return self._quarantine(sick, now)
        while failures[0] <= now - policy.window_s:
            failures.popleft()
        if sick.until or len(failures) < policy.after:
            return None
        sick.reason = f"after {len(failures)} failures in {policy.window_s:g}s"
        return self._quarantine(sick, now)

    @staticmethod
    def _quarantine(sick: Sick, now: float) -> Sick:
        sick.until, sick.retrying = now + sick.cooldown_s, False
        return sick

    def passed(self, callback_id: str) -> None:
        """``callback_id`` answered: its failures are forgiven."""
        self.pop(callback_id, None)

    def quarantined(self, now: float | None = None) -> dict[str, Sick]:
        """The hooks quarantined now, by callback id."""
        now = time.monotonic() if now is None else now
        return {cid: sick for cid, sick in self.items() if sick.until > now}


def _seconds(value: float) -> str:
    """``30s``, ``2.5s``, ``0.4s``: whole seconds from 10 on."""
    if value >= 9.95:
        return f"{value:.0f}s"
    return f"{value:.1f}".removesuffix(".0") + "s"
