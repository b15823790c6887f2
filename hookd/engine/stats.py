"""Per-hook counters for ``GET /status``: calls, errors, timeouts, calls refused by a
quarantine, latency percentiles; and the hooks quarantined now, until when."""

from __future__ import annotations

import time
from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from hookd.core.health import Sick
from hookd.core.registry import Registry

__all__ = ["HookStats", "Stats", "Totals"]

#: Latency samples kept per hook (the most recent ones).
SAMPLES: Final = 4096


@dataclass(slots=True)
class HookStats:
    """One hook's counters since the server started.

    The latencies are kept in a ring of C doubles, written in place: a float object
    kept per call (a deque of the last 4,096) pinned small-object memory between the
    calls' short-lived objects and cost about 1 us per answer on one core (`make bench`).
    """

    calls: int = 0
    errors: int = 0
    timeouts: int = 0
    quarantined: int = 0
    samples: array[float] = field(default_factory=lambda: array("d", bytes(8 * SAMPLES)))

    def latencies(self) -> list[float]:
        """The most recent :data:`SAMPLES` latencies in milliseconds (in no order)."""
        return self.samples[: min(self.calls, SAMPLES)].tolist()

    def failed(self, outcome: str) -> None:
        """Count a run that did not end ``ok`` under its kind."""
        kind = outcome.removeprefix("blocked:")
        if kind == "timeout":
            self.timeouts += 1
        elif kind in ("exception", "invalid_output"):
            self.errors += 1
        elif kind == "quarantined":
            self.quarantined += 1


@dataclass(slots=True)
class Totals:
    """Counters added up over several :class:`HookStats` (a ``GET /status`` row)."""

    calls: int = 0
    errors: int = 0
    timeouts: int = 0
    quarantined: int = 0
    latencies: list[float] = field(default_factory=list)


def percentile(values: list[float], fraction: float) -> float | None:
    """The nearest-rank percentile of sorted ``values``; None when there are none."""
    if not values:
        return None
    rank = max(1, -(-len(values) * fraction // 1))
    return values[int(rank) - 1]


class Stats:
    """Counters by agent and callback id, and the server's own totals.

    Each call is counted once, under its agent and hook; the per-hook and per-agent rows
    of ``GET /status`` add them up when asked (rarely), not on every call.
    """

    def __init__(self) -> None:
        self._hooks: dict[tuple[str, str], HookStats] = {}  # by (agent, callback id)
        self.stuck: dict[str, int] = {}  # the executor's live count of stuck threads per hook
        self.requests = 0
        self.refused = 0

    def hook(
        self, callback_id: str, outcome: str, elapsed_ms: float, agent: str = "claude"
    ) -> None:
        """Count one run of ``callback_id`` for ``agent`` that ended with ``outcome``."""
        stats = self._hooks.get((agent, callback_id))
        if stats is None:
            stats = self._hooks[agent, callback_id] = HookStats()
        calls = stats.calls
        stats.samples[calls % SAMPLES] = elapsed_ms
        stats.calls = calls + 1
        if outcome != "ok":
            stats.failed(outcome)

    def rekey(self, old: Registry | None, new: Registry | None) -> None:
        """A reload swapped ``old`` for ``new``: each hook's figures follow the hook (its
        event, matcher and function), not its position, so a kept hook keeps them under its
        new id and a removed hook's go; a new hook starts at zero."""
        if old is None or new is None:
            return
        now = _identities(new)
        moved = {cid: now.get(identity) for identity, cid in _identities(old).items()}
        hooks: dict[tuple[str, str], HookStats] = {}
        for (agent, cid), stats in self._hooks.items():
            target = moved.get(cid, cid)  # can_use_tool is no registered hook: kept
            if target is not None:
                hooks[agent, target] = stats
        self._hooks = hooks

    def of_hook(self, callback_id: str) -> Totals:
        """``callback_id``'s counters over every agent."""
        return _summed(stats for (_, cid), stats in self._hooks.items() if cid == callback_id)

    def rows(self, registry: Registry | None) -> list[dict[str, Any]]:
        """One row per registered hook (in id order), counters at zero when never called."""
        if registry is None:
            return []
        rows = []
        sick: dict[str, list[Sick]] = {}
        if registry.health:
            for (_, _, cid), record in registry.health.quarantined().items():
                sick.setdefault(cid, []).append(record)
        for reg in registry.registrations():
            stats = self.of_hook(reg.callback_id)
            ordered = sorted(stats.latencies)
            rows.append(
                {
                    "callback_id": reg.callback_id,
                    "name": reg.name,
                    "event": reg.event,
                    "matcher": reg.matcher,
                    "calls": stats.calls,
                    "errors": stats.errors,
                    "timeouts": stats.timeouts,
                    "stuck": self.stuck.get(reg.callback_id, 0),
                    "quarantined": stats.quarantined,
                    "p50_ms": percentile(ordered, 0.5),
                    "p99_ms": percentile(ordered, 0.99),
                    **_quarantine(sick.get(reg.callback_id, [])),
                }
            )
        return rows

    def agent_rows(self) -> dict[str, dict[str, Any]]:
        """Calls, errors, timeouts and latency percentiles by the agent that sent them."""
        by_agent: dict[str, list[HookStats]] = {}
        for (agent, _), hook_stats in sorted(self._hooks.items()):
            by_agent.setdefault(agent, []).append(hook_stats)
        rows = {}
        for agent, hooks in by_agent.items():
            stats = _summed(hooks)
            ordered = sorted(stats.latencies)
            rows[agent] = {
                "calls": stats.calls,
                "errors": stats.errors,
                "timeouts": stats.timeouts,
                "quarantined": stats.quarantined,
                "p50_ms": percentile(ordered, 0.5),
                "p99_ms": percentile(ordered, 0.99),
            }
        return rows


def _summed(parts: Iterable[HookStats]) -> Totals:
    """One set of counters of ``parts``; the most recent :data:`SAMPLES` latencies of each."""
    total = Totals()
    for part in parts:
        total.calls += part.calls
        total.errors += part.errors
        total.timeouts += part.timeouts
        total.quarantined += part.quarantined
        total.latencies += part.latencies()
    return total


def _quarantine(records: list[Sick]) -> dict[str, Any]:
    """A row's ``quarantined_sessions`` (how many sessions the hook is quarantined in now),
    and of the one quarantined longest, ``quarantined_until`` (UNIX time) and
    ``quarantine_reason``; None when healthy."""
    if not records:
        return {"quarantined_sessions": 0, "quarantined_until": None, "quarantine_reason": None}
    sick = max(records, key=lambda r: r.until)
    until = round(time.time() + (sick.until - time.monotonic()), 3)
    return {
        "quarantined_sessions": len(records),
        "quarantined_until": until,
        "quarantine_reason": f"{sick.reason} (last: {sick.last})",
    }


def _identities(registry: Registry) -> dict[tuple[str, str | None, str, int], str]:
    """Each registered hook's callback id by what it is: event, matcher, function, and how
    many of the same came before it."""
    seen: dict[tuple[str, str | None, str], int] = {}
    found = {}
    for reg in registry.registrations():
        base = (reg.event, reg.matcher, reg.name)
        n = seen[base] = seen.get(base, 0) + 1
        found[(*base, n)] = reg.callback_id
    return found
