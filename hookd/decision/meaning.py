"""What an answer decides, in one word: allow, deny, ask, rewrite, context or none.

Read from the output as the agent receives it (Claude's shape), so every entrance
and every agent reads the same: a ``permissionDecision``, a PermissionRequest's
``decision.behavior``, a ``can_use_tool`` answer's ``behavior``, a ``decision:
"block"`` or ``continue: false`` (both read as ``deny``: the action does not go
ahead), an ``updatedInput`` (``rewrite``), an ``additionalContext`` (``context``).
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["decision_of", "failure_word", "headline"]

#: The log's word for a hook's failed outcome (``blocked:`` is dropped first).
_FAILURES: Final = {
    "exception": "raised",
    "timeout": "timed_out",
    "invalid_output": "invalid_output",
    "aborted": "aborted",
    "cancelled": "cancelled",
    "unsupported": "unsupported",
    "quarantined": "quarantined",
}


def failure_word(outcome: str) -> str | None:
    """``raised``, ``timed_out``, ``invalid_output``, ...; None for an outcome that is ok."""
    if outcome == "ok":
        return None
    kind = outcome.removeprefix("blocked:")
    return _FAILURES.get(kind, kind)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def decision_of(output: dict[str, Any] | None) -> tuple[str, str]:
    """(decision, reason) of one output; ``("none", "")`` for an empty one."""
    if not output:
        return "none", ""
    specific = output.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    permission = specific.get("permissionDecision")
    behaviour = _behaviour(specific.get("decision"), output)
    if permission == "deny":
        return "deny", _text(specific.get("permissionDecisionReason"))
    if behaviour == "deny":
        return "deny", _text(_message(specific.get("decision"), output))
    if output.get("decision") == "block":
        return "deny", _text(output.get("reason"))
    if output.get("continue") is False:
        return "deny", _text(output.get("stopReason"))
    if permission == "ask":
        return "ask", _text(specific.get("permissionDecisionReason"))
    return _positive(specific, output, permission, behaviour)


def _positive(
    specific: dict[str, Any], output: dict[str, Any], permission: Any, behaviour: Any
) -> tuple[str, str]:
    reason = _text(specific.get("permissionDecisionReason"))
    decision = specific.get("decision")
    rewritten = specific.get("updatedInput") is not None or output.get("updatedInput") is not None
    if isinstance(decision, dict) and decision.get("updatedInput") is not None:
        rewritten = True
    if rewritten and (permission == "allow" or behaviour == "allow"):
        return "rewrite", reason
    if permission == "allow" or behaviour == "allow":
        return "allow", reason
    context = specific.get("additionalContext")
    if isinstance(context, str) and context:
        return "context", context
    return "none", ""


def _behaviour(decision: Any, output: dict[str, Any]) -> Any:
    if isinstance(decision, dict):
        return decision.get("behavior")
    return output.get("behavior")  # a can_use_tool answer


def _message(decision: Any, output: dict[str, Any]) -> Any:
    if isinstance(decision, dict):
        return decision.get("message")
    return output.get("message")


def headline(output: dict[str, Any] | None) -> str:
    """What an output decides, for a person: ``DENY (reason)``, ``ALLOW``, ``adds context:
    'text'``, ``no objection ({})``."""
    decision, reason = decision_of(output)
    match decision:
        case "none":
            return "no objection ({})"
        case "context":
            return f"adds context: {reason!r}"
        case "rewrite":
            return "ALLOW, input rewritten" + (f" ({reason})" if reason else "")
    return decision.upper() + (f" ({reason})" if reason else "")
