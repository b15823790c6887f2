"""What firing one event gave: the decision, read off the merged output, and each hook's outcome."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from hookd.agents import Encoded

__all__ = ["Decision", "FireResult", "HookOutcome", "decision_of"]

Decision = Literal["allow", "deny", "ask", "defer", "block", "none"]
JsonObject = dict[str, Any]


@dataclass(frozen=True, slots=True)
class HookOutcome:
    """How one hook ended: ``outcome`` is ``ok``, ``aborted``, ``blocked:exception``,
    ``exception``, ``timeout``, ``invalid_output``, ... as in hookd's log."""

    id: str
    name: str
    outcome: str
    elapsed_ms: float
    output: JsonObject | None = None
    error: str | None = None
    traceback: str | None = None

    @property
    def ok(self) -> bool:
        """True when the hook returned a valid output (or raised ``HookAbortError``)."""
        return self.outcome in ("ok", "aborted")

    def __repr__(self) -> str:
        shown = f"error={self.error!r}" if self.error is not None else f"output={self.output!r}"
        return f"<{self.id} {self.name}: {self.outcome}, {shown}>"


def decision_of(output: JsonObject) -> tuple[Decision, str | None]:
    """The decision an output carries, and its reason."""
    specific = output.get("hookSpecificOutput")
    if isinstance(specific, dict):
        verdict = specific.get("permissionDecision")
        if verdict in ("allow", "deny", "ask", "defer"):
            return verdict, specific.get("permissionDecisionReason")
        decision = specific.get("decision")
        if isinstance(decision, dict) and decision.get("behavior") in ("allow", "deny"):
            return decision["behavior"], decision.get("message")
    match output.get("decision"):
        case "block":
            return "block", output.get("reason")
        case "approve":
            return "allow", output.get("reason")
    return "none", None


@dataclass(frozen=True, slots=True)
class FireResult:
    """One event fired at a hooks module, read like the CLI reads the answer.

    ``output`` is the merged output as sent; ``hooks`` has each selected hook's
    own outcome, in registration order. Fired with ``agent="gemini"`` (...),
    ``payload`` is the agent's own payload, ``input`` the hook's (Claude's)
    input decoded from it, and ``encoded`` the stdout and exit code the agent
    would receive. A hook that failed under
    ``on_failure="block"`` reads as the blocking answer (a deny on PreToolUse),
    as in production.
    """

    event: str
    input: JsonObject
    output: JsonObject
    hooks: tuple[HookOutcome, ...] = ()
    conflicts: tuple[JsonObject, ...] = field(default=())
    agent: str = "claude"
    payload: JsonObject | None = None  # what the agent sent (fired with ``agent=``)
    encoded: Encoded | None = None  # what the agent receives (fired with ``agent=``)

    @property
    def decision(self) -> Decision:
        """allow / deny / ask / defer (permission decisions), block, or none."""
        return decision_of(self.output)[0]

    @property
    def reason(self) -> str | None:
        """The decision's reason, as the deciding hook wrote it (hooks that agree: joined
        with ``; ``); else ``stopReason``. ``output`` has the merged text, which names
        each deciding hook: ``hook_2: reason``."""
        decision = self.decision
        deciding = [
            decision_of(h.output)[1]
            for h in self.hooks
            if h.output is not None and decision != "none" and decision_of(h.output)[0] == decision
        ]
        if deciding:
            return "; ".join(r for r in deciding if r) or None
        reason = decision_of(self.output)[1]
        return reason if reason is not None else self.stop_reason

    @property
    def context(self) -> str | None:
        """``additionalContext``: text added to the model's context."""
        specific = self.output.get("hookSpecificOutput")
        return specific.get("additionalContext") if isinstance(specific, dict) else None

    @property
    def updated_input(self) -> JsonObject | None:
        """The rewritten tool input, if a hook rewrote it."""
        specific = self.output.get("hookSpecificOutput")
        if not isinstance(specific, dict):
            return None
        decision = specific.get("decision")
        if isinstance(decision, dict) and "updatedInput" in decision:
            return decision["updatedInput"]  # type: ignore[no-any-return]
        return specific.get("updatedInput")

    @property
    def stopped(self) -> bool:
        """True when a hook stopped the whole run (``continue: false``)."""
        return self.output.get("continue") is False

    @property
    def stop_reason(self) -> str | None:
        return self.output.get("stopReason")

    @property
    def system_message(self) -> str | None:
        return self.output.get("systemMessage")

    @property
    def ran(self) -> list[str]:
        """The ids of the hooks that were selected and ran."""
        return [h.id for h in self.hooks]

    @property
    def failures(self) -> list[HookOutcome]:
        """The hooks that raised, timed out or returned an invalid output."""
        return [h for h in self.hooks if not h.ok]

    def hook(self, name_or_id: str) -> HookOutcome:
        """One hook's outcome, by id (``hook_1``) or callback name."""
        for h in self.hooks:
            if name_or_id in (h.id, h.name):
                return h
        raise KeyError(f"{name_or_id!r} did not run; ran: {', '.join(self.ran) or 'nothing'}")

    def __repr__(self) -> str:
        parts = [f"decision={self.decision!r}"]
        if self.reason is not None:
            parts.append(f"reason={self.reason!r}")
        parts.append(f"output={self.output!r}")
        parts.append(f"hooks={list(self.hooks)!r}")
        return f"FireResult({self.event}: {', '.join(parts)})"
