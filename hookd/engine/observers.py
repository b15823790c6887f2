"""What sees every finished call once: counts, records, the request log line.

The kernel hands each observer a :class:`Finished` when a call is done (for a
call with shadow hooks: when they end too). The kernel's own observer is
:class:`HookCounts` (per-hook stats and quarantine counts); an entrance adds
the others it keeps: :class:`DecisionNotes` (the decision log) and the request
log line (``hookd.serve``'s, beside the log it writes to).
"""

from __future__ import annotations

import time
from typing import Protocol

import msgspec

from hookd.core.registry import Registry
from hookd.engine import quarantine
from hookd.engine.call import HookCall
from hookd.engine.decisions import DecisionLog, Noted
from hookd.engine.stats import Stats
from hookd.engine.verdict import Verdict

__all__ = ["DecisionNotes", "Finished", "HookCounts", "Observer"]


class Finished(msgspec.Struct, frozen=True, gc=False):
    """One finished call: the call, its verdict, the registry that answered it, its time."""

    call: HookCall
    verdict: Verdict
    registry: Registry | None
    elapsed_ms: float


class Observer(Protocol):
    """Told of every finished call once; must not raise, must not wait."""

    def finished(self, done: Finished) -> None: ...


class HookCounts:
    """Per-hook stats (``GET /status``) and each hook's quarantine record."""

    def __init__(self, stats: Stats) -> None:
        self.stats = stats

    def finished(self, done: Finished) -> None:
        verdict = done.verdict
        stats = self.stats
        stats.requests += 1
        runs = [*verdict.ran, *verdict.shadow] if verdict.shadow else verdict.ran
        registry = done.registry
        health = None if registry is None else registry.health
        for ran in runs:
            outcome = ran.answer.outcome
            stats.hook(ran.reg.callback_id, outcome, ran.elapsed_ms, done.call.agent)
            # records to forgive are rare: a run that went well has nothing else to count
            if health is not None and (outcome != "ok" or health.records):
                quarantine.count(health, quarantine.key(done.call, ran.reg), ran.reg, ran.answer)


class DecisionNotes:
    """Every answer into the decision log (references only: its writer thread does the rest)."""

    def __init__(self, decisions: DecisionLog) -> None:
        self.decisions = decisions

    def finished(self, done: Finished) -> None:
        call, registry = done.call, done.registry
        version, redact = ("", ()) if registry is None else (registry.version, registry.redact)
        self.decisions.note(
            Noted(time.time(), done.verdict.event, call.agent, call.input, call.request_id,
                  done.verdict, version, redact, done.elapsed_ms)
        )  # fmt: skip
