"""Quarantine, seen from the kernel: a hook's health record per session, its leash, its count.

Only a hook that did not answer in time costs the agent waiting, so only timeouts count
(:data:`FAILURES`); an answer forgives them, and a withdrawn call or a quarantined one
(:data:`NEUTRAL`) does neither. A quarantined hook still runs, on the quarantine's leash
(:meth:`hookd.core.health.Health.leash`); a timeout on the leash is answered
``quarantined`` at once (:func:`on_leash`). The records are
:class:`hookd.core.health.Health`'s.
"""

from __future__ import annotations

from typing import Final

import structlog

from hookd.core.health import Health, Key, Sick
from hookd.core.policy import Answer, Outcome, describe
from hookd.core.registry import Registration
from hookd.engine.call import HookCall

__all__ = ["FAILURES", "NEUTRAL", "count", "key", "on_leash"]

log = structlog.get_logger("hookd.handler")

#: Answer outcomes that count towards a hook's quarantine.
FAILURES: Final = frozenset({"timeout", "blocked:timeout"})
#: Answer outcomes that do not forgive the earlier timeouts.
NEUTRAL: Final = frozenset({"quarantined", "blocked:quarantined", "cancelled"})


def key(call: HookCall, reg: Registration) -> Key:
    """Whose health record a call counts towards: its agent's session's, for this hook."""
    return (call.agent, call.session_id or "", reg.callback_id)


def on_leash(health: Health, reg: Registration, sick: Sick, outcome: Outcome) -> Outcome:
    """A quarantined hook's outcome: its answer within the leash, else ``quarantined``."""
    if outcome.kind != "timeout":
        return outcome
    refused = health.refusal(sick, health.policy.leash_s)
    log.warning("hook.refused", callback_id=reg.callback_id, reason=refused)
    return Outcome("quarantined", message=refused)


def count(health: Health, found: Key, reg: Registration, answer: Answer) -> None:
    """Count a hook's timeout towards its quarantine in the call's session, or forgive its
    timeouts when it answered."""
    outcome = answer.outcome
    if outcome in FAILURES:
        sick = health.failed(found, describe(outcome, answer.message))
        if sick is not None:
            log.warning(
                "hook.quarantined",
                callback_id=reg.callback_id,
                name=reg.name,
                agent=found[0],
                session_id=found[1],
                reason=sick.reason,
                last=sick.last,
                cooldown_s=sick.cooldown_s,
            )
    elif outcome not in NEUTRAL:
        health.passed(found)
