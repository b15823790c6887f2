"""The failure policy: what goes on the wire when a callback fails or aborts.

=================  ===========================================================
outcome            answer
=================  ===========================================================
ok                 the callback's output
abort              ``{"continue": false, "stopReason": reason}`` (+ deny on
                   PreToolUse), whatever ``on_failure`` says
exception,         ``on_failure="block"``: the event's blocking output with the
timeout,           reason; ``"continue"`` (or an event that cannot block): an
invalid_output,    error response with the outcome's ``error_code``
quarantined        (a quarantined hook, not run: ``hook_execution_error``)
=================  ===========================================================
"""

from __future__ import annotations

from typing import Any, Final, Literal

import msgspec

from hookd.core.registry import Registration
from hookd.events.table import BLOCK_STYLE
from hookd.wire.errors import ErrorKind

__all__ = [
    "PERMISSION_REQUEST",
    "Answer",
    "Outcome",
    "abort_output",
    "blocking_output",
    "deny_output",
    "describe",
    "resolve",
]

#: The one event whose deny is ``decision.behavior``.
PERMISSION_REQUEST: Final = "PermissionRequest"

OutcomeKind = Literal[
    "ok", "abort", "exception", "timeout", "invalid_output", "cancelled", "quarantined"
]

_ERROR_KIND: dict[str, ErrorKind] = {
    "exception": ErrorKind.HOOK_EXECUTION_ERROR,
    "timeout": ErrorKind.HOOK_TIMEOUT,
    "invalid_output": ErrorKind.INVALID_OUTPUT,
    "cancelled": ErrorKind.HOOK_EXECUTION_ERROR,  # withdrawn: the server never sends it
    "quarantined": ErrorKind.HOOK_EXECUTION_ERROR,  # not run: it kept failing
}


class Outcome(msgspec.Struct, gc=False):  # one per run, never in a cycle: untracked
    """How one callback run ended. ``message`` is the error text for failures."""

    kind: OutcomeKind
    output: dict[str, Any] | None = None
    message: str = ""


class Answer(msgspec.Struct, gc=False):  # one per run, never in a cycle: untracked
    """What to send: a success ``payload`` or an error of ``error_kind``.

    ``outcome`` is the log's word for it: ok, aborted, blocked, or the failure.
    """

    outcome: str
    payload: dict[str, Any] | None = None
    error_kind: ErrorKind | None = None
    message: str = ""
    event: str | None = None


def resolve(reg: Registration, outcome: Outcome) -> Answer:
    """Apply ``reg``'s failure policy to ``outcome``."""
    if outcome.kind == "ok":  # the common case, first
        payload = outcome.output if outcome.output is not None else {}
        return Answer("ok", payload, None, "", reg.event)
    answer = _resolve(reg, outcome)
    answer.event = reg.event
    return answer


def _resolve(reg: Registration, outcome: Outcome) -> Answer:
    if outcome.kind == "ok":
        return Answer("ok", payload=outcome.output if outcome.output is not None else {})
    if outcome.kind == "abort":
        return Answer("aborted", payload=abort_output(reg.event, outcome.message))
    error_kind = _ERROR_KIND[outcome.kind]
    if reg.on_failure == "block":
        reason = f"hookd: hook {reg.name} {describe(outcome.kind, outcome.message)}"
        blocked = blocking_output(reg.event, reason)
        if blocked is not None:
            return Answer(f"blocked:{outcome.kind}", payload=blocked, message=outcome.message)
    return Answer(outcome.kind, error_kind=error_kind, message=outcome.message)


def describe(kind: str, message: str) -> str:
    """A failure in the words of a blocking reason: ``raised an exception: boom``.

    A ``quarantined`` outcome's message says it all: ``quarantined after 5 timeouts ...``."""
    match kind.removeprefix("blocked:"):
        case "timeout":
            return f"timed out: {message}"
        case "invalid_output":
            return f"returned an invalid output: {message}"
        case "quarantined":
            return f"is {message}"
        case _:
            return f"raised an exception: {message}"


def block_style(event: str) -> str:
    """How ``event`` is blocked (see :mod:`hookd.events`); ``none`` if it cannot be."""
    return BLOCK_STYLE.get(event, "none")


def deny_output(event: str, reason: str) -> dict[str, Any]:
    """The output that denies ``event``'s tool or permission with ``reason``.

    ``decision.behavior`` on PermissionRequest, ``permissionDecision`` elsewhere.
    """
    specific: dict[str, Any]
    if event == PERMISSION_REQUEST:
        specific = {"decision": {"behavior": "deny", "message": reason}}
    else:
        specific = {"permissionDecision": "deny", "permissionDecisionReason": reason}
    return {"hookSpecificOutput": {"hookEventName": event, **specific}}


def blocking_output(event: str, reason: str) -> dict[str, Any] | None:
    """The output that blocks ``event`` with ``reason``; None if it cannot block."""
    match block_style(event):
        case "permission_decision" | "permission_request":
            return deny_output(event, reason)
        case "decision":
            return {"decision": "block", "reason": reason}
        case _:
            return None


def abort_output(event: str, reason: str) -> dict[str, Any]:
    """``HookAbortError``'s answer: stop the run, and deny the tool on PreToolUse."""
    out: dict[str, Any] = {"continue": False, "stopReason": reason}
    if block_style(event) == "permission_decision":
        out.update(deny_output(event, reason))
    return out
