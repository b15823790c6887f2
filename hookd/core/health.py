"""Hook health: a hook that keeps timing out in a session is put on a short leash there.

Quarantine protects the agent from waiting out a hook's whole timeout on every call
when the hook hangs. It never skips a hook, and no session can change what a hook
answers another session:

- Only timeouts count (a hook that did not answer within its time, or whose earlier
  calls are still stuck in their threads). An exception or an invalid output costs
  the agent no waiting: it is answered under the failure policy call by call, and a
  burst of inputs that make a guard raise changes nothing for the next call.
- Records are kept per (agent, session id, callback id): one session's calls build
  up only that session's record, and its failure texts are shown only to it.
- :data:`QUARANTINE_AFTER` timeouts within :data:`QUARANTINE_WINDOW_S` seconds
  quarantine the hook *in that session*: until its cool-down ends, each of its calls
  there still runs the hook, with :attr:`Quarantine.leash_s` seconds to answer
  instead of its full timeout. An answer within the leash is the hook's answer (a
  guard still denies); no answer within it is answered at once under the failure
  policy, as the outcome ``quarantined``. The first call after the cool-down gets
  its full timeout again: an answer clears the record, a timeout quarantines it again
  for twice as long (up to :data:`MAX_COOLDOWN_S`).

There is no timer: each call compares ``time.monotonic()`` with the record's end.
Records live on the registry (:attr:`Registry.health`), so a reload starts every hook
clean; at most :data:`MAX_RECORDS` are kept (the oldest go first). A healthy server
holds no record at all: the handler asks only whether the table is empty.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Iterator, Mapping
from typing import Final

import msgspec

from hookd.bounds import SECONDS, Bound, env_number

__all__ = [
    "AFTER",
    "AFTER_ENV",
    "COOLDOWN_ENV",
    "LEASH_ENV",
    "MAX_COOLDOWN_S",
    "MAX_RECORDS",
    "QUARANTINE_AFTER",
    "QUARANTINE_COOLDOWN_S",
    "QUARANTINE_LEASH_S",
    "QUARANTINE_WINDOW_S",
    "WINDOW_ENV",
    "Health",
    "Key",
    "Quarantine",
    "Sick",
]

#: Timeouts within the window that quarantine a hook in a session (0: never).
QUARANTINE_AFTER: Final = 5
#: Seconds the timeouts are counted over.
QUARANTINE_WINDOW_S: Final = 60.0
#: Seconds of the first quarantine; each failed retry doubles it.
QUARANTINE_COOLDOWN_S: Final = 30.0
#: Seconds a quarantined hook has to answer (its full timeout when that is shorter).
QUARANTINE_LEASH_S: Final = 1.0
#: The longest cool-down.
MAX_COOLDOWN_S: Final = 600.0
#: The most records kept (sessions x hooks that timed out lately); the oldest go first.
MAX_RECORDS: Final = 4096
#: What ``--quarantine-after`` and its variable take (the other three take :data:`SECONDS`).
AFTER: Final = Bound(0, 1000, whole=True, zero="never")
#: Environment defaults of ``--quarantine-after``, ``-window``, ``-cooldown``, ``-leash``.
AFTER_ENV: Final = "HOOKD_QUARANTINE_AFTER"
WINDOW_ENV: Final = "HOOKD_QUARANTINE_WINDOW"
COOLDOWN_ENV: Final = "HOOKD_QUARANTINE_COOLDOWN"
LEASH_ENV: Final = "HOOKD_QUARANTINE_LEASH"

#: Whose record: (agent, session id, callback id); the session id is "" when a call has none.
Key = tuple[str, str, str]


class Quarantine(msgspec.Struct, frozen=True):
    """When a hook that keeps timing out is quarantined, for how long, on what leash (s)."""

    after: int = QUARANTINE_AFTER
    window_s: float = QUARANTINE_WINDOW_S
    cooldown_s: float = QUARANTINE_COOLDOWN_S
    max_cooldown_s: float = MAX_COOLDOWN_S
    leash_s: float = QUARANTINE_LEASH_S

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Quarantine:
        """The defaults, as the ``HOOKD_QUARANTINE_*`` variables change them.

        Raises :class:`~hookd.bounds.BoundError` naming the variable when one is not a
        number in range."""

        def seconds(name: str, default: float) -> float:
            return env_number(name, SECONDS, default, environ)

        cooldown_s = seconds(COOLDOWN_ENV, QUARANTINE_COOLDOWN_S)
        return cls(
            int(env_number(AFTER_ENV, AFTER, QUARANTINE_AFTER, environ)),
            seconds(WINDOW_ENV, QUARANTINE_WINDOW_S),
            cooldown_s,
            max(MAX_COOLDOWN_S, cooldown_s),
            seconds(LEASH_ENV, QUARANTINE_LEASH_S),
        )


class Sick:
    """One hook's recent timeouts in one session, and its quarantine when it is in one."""

    __slots__ = ("cooldown_s", "failures", "last", "reason", "retrying", "until")

    def __init__(self, cooldown_s: float) -> None:
        self.failures: collections.deque[float] = collections.deque()
        self.cooldown_s = cooldown_s  # the next quarantine's length
        self.until = 0.0  # monotonic end of the quarantine; 0: not quarantined
        self.retrying = False  # the cool-down ended: the calls since run for real
        self.last = ""  # the last timeout, as the failure policy words it
        self.reason = ""  # why it is quarantined: "after 5 timeouts in 60s"


class Health:
    """The hooks that timed out lately, per (agent, session, callback id); empty when all
    is well."""

    def __init__(self, policy: Quarantine | None = None) -> None:
        self.policy = policy if policy is not None else Quarantine()
        self._sick: collections.OrderedDict[Key, Sick] = collections.OrderedDict()
        #: The records themselves (read only): empty when all is well, the hot path's test.
        self.records: Mapping[Key, Sick] = self._sick

    def __bool__(self) -> bool:
        return bool(self._sick)

    def __len__(self) -> int:
        return len(self._sick)

    def __iter__(self) -> Iterator[Key]:
        return iter(self._sick)

    def __getitem__(self, key: Key) -> Sick:
        return self._sick[key]

    def clear(self) -> None:
        self._sick.clear()

    def leash(self, key: Key, now: float | None = None) -> Sick | None:
        """The record of ``key`` when its hook is quarantined in its session now (its
        call gets :attr:`Quarantine.leash_s` to answer), else None."""
        sick = self._sick.get(key)
        if sick is None or not sick.until:
            return None
        now = time.monotonic() if now is None else now
        if sick.until <= now:  # the cool-down is over: this call gets its full timeout
            sick.until, sick.retrying = 0.0, True
            return None
        return sick

    def refusal(self, sick: Sick, leash_s: float, now: float | None = None) -> str:
        """Why a leashed call got no answer: ``quarantined after ...; full timeout again
        in 25s``."""
        now = time.monotonic() if now is None else now
        left = _seconds(max(0.0, sick.until - now))
        return (
            f"quarantined {sick.reason} (last: {sick.last}): no answer within its "
            f"{_seconds(leash_s)} leash; full timeout again in {left}"
        )

    def failed(self, key: Key, last: str, now: float | None = None) -> Sick | None:
        """Count one timeout of ``key`` (``last`` words it); its record when this timeout
        quarantines it."""
        policy = self.policy
        if policy.after <= 0:
            return None
        now = time.monotonic() if now is None else now
        sick = self._sick.get(key)
        if sick is None:
            sick = self._sick[key] = Sick(policy.cooldown_s)
            if len(self._sick) > MAX_RECORDS:
                self._sick.popitem(last=False)
        else:
            self._sick.move_to_end(key)
        sick.last = last
        failures = sick.failures
        failures.append(now)
        if sick.retrying:  # the retry after a cool-down timed out: twice as long this time
            sick.cooldown_s = min(sick.cooldown_s * 2, policy.max_cooldown_s)
            sick.reason = "again: its retry timed out"
            return self._quarantine(sick, now)
        while failures[0] <= now - policy.window_s:
            failures.popleft()
        if sick.until or len(failures) < policy.after:
            return None
        sick.reason = f"after {len(failures)} timeouts in {policy.window_s:g}s"
        return self._quarantine(sick, now)

    @staticmethod
    def _quarantine(sick: Sick, now: float) -> Sick:
        sick.until, sick.retrying = now + sick.cooldown_s, False
        return sick

    def passed(self, key: Key, now: float | None = None) -> None:
        """``key``'s hook answered: its timeouts are forgiven, unless it is quarantined now
        (an answer within the leash does not end the cool-down early)."""
        sick = self._sick.get(key)
        if sick is None:
            return
        if sick.until and sick.until > (time.monotonic() if now is None else now):
            return
        del self._sick[key]

    def quarantined(self, now: float | None = None) -> dict[Key, Sick]:
        """The records quarantined now, by key."""
        now = time.monotonic() if now is None else now
        return {key: sick for key, sick in self._sick.items() if sick.until > now}


def _seconds(value: float) -> str:
    """``30s``, ``2.5s``, ``0.4s``: whole seconds from 10 on."""
    if value >= 9.95:
        return f"{value:.0f}s"
    return f"{value:.1f}".removesuffix(".0") + "s"
