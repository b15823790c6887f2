"""Codex (``@openai/codex``): Claude's event and tool names, closed output schemas.

Codex sends Claude Code's event names and calls its shell tool ``Bash``
(mapped from its own ``exec_command``), so the tables are short. Its output
schemas are closed, and an output it rejects counts as a failed hook, which
lets the tool run; so the encoder writes only what each event accepts
(``schemas/agents/codex/*.json`` says it as JSON Schema, checked by the tests).

==============================  ============================================================
Claude answer (merged)          what Codex receives
==============================  ============================================================
PreToolUse deny + reason        ``hookSpecificOutput.permissionDecision: "deny"`` + reason
                                (a reason is required: hookd supplies one when a hook gave none)
PreToolUse ask / defer          ``ask``: a deny whose reason says the call needs the user's
                                approval (Codex has no ask); ``defer``: no output
PreToolUse allow                no output (a bare allow is invalid in Codex)
PreToolUse allow + updatedInput ``permissionDecision: "allow"`` + ``updatedInput``
PreToolUse continue: false      a deny with ``stopReason`` as the reason (invalid there)
PermissionRequest deny / allow  ``decision.behavior`` (a deny with a ``message``, always);
                                ``continue: false`` there is a deny
additionalContext               ``hookSpecificOutput.additionalContext``
decision: block (other events)  ``decision: "block"`` + ``reason`` (Stop: keep going)
continue: false (other events)  ``continue: false`` + ``stopReason``
systemMessage                   ``systemMessage``
hookd cannot answer             blocking event: exit 2 + one line on stderr; else exit 1
==============================  ============================================================

Codex's ``Interrupt`` has no Claude counterpart (unsupported). Its input schemas are closed
too: the kit's Codex payloads carry only the fields Codex sends for the event
(:data:`SENT_BY_EVENT`), with a shell command's result as the text of its output (Codex's
PostToolUse ``tool_response`` is a string, not Claude's ``{stdout, stderr, ...}``).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Final

from hookd.agents.dialect import Dialect, Encoded, Intent, dumps, failed_closed
from hookd.engine.call import HookCall
from hookd.engine.verdict import Verdict

__all__ = ["APPROVAL_NEEDED", "DEFAULT_REASON", "DIALECT", "SENT_BY_EVENT"]

EVENTS: Final = MappingProxyType(
    {
        name: name
        for name in (
            "PreToolUse",
            "PermissionRequest",
            "PostToolUse",
            "UserPromptSubmit",
            "Stop",
            "SubagentStart",
            "SubagentStop",
            "SessionStart",
            "SessionEnd",
            "PreCompact",
            "PostCompact",
        )
    }
)
#: Codex already names its shell tool ``Bash`` in hook payloads (its own ``exec_command``).
TOOLS: Final = MappingProxyType[str, str]({})

_BASE = ("session_id", "transcript_path", "cwd", "hook_event_name")
_TURN = (*_BASE, "model", "permission_mode", "turn_id")
_AGENT = ("agent_id", "agent_type")
_TOOL = (*_TURN, *_AGENT, "tool_name", "tool_input")
_COMPACT = frozenset({*_BASE, "model", "turn_id", *_AGENT, "trigger"})
#: The top-level fields Codex sends, by event: its closed input schemas (the kit's payloads carry
#: only these; ``schemas/agents/codex/input.json`` holds the schemas, checked by the tests).
SENT_BY_EVENT: Final = MappingProxyType(
    {
        "PreToolUse": frozenset({*_TOOL, "tool_use_id"}),
        "PermissionRequest": frozenset(_TOOL),
        "PostToolUse": frozenset({*_TOOL, "tool_use_id", "tool_response"}),
        "UserPromptSubmit": frozenset({*_TURN, *_AGENT, "prompt"}),
        "Stop": frozenset({*_TURN, "stop_hook_active", "last_assistant_message"}),
        "SubagentStart": frozenset({*_TURN, *_AGENT}),
        "SubagentStop": frozenset(
            {*_TURN, *_AGENT, "agent_transcript_path", "stop_hook_active", "last_assistant_message"}
        ),
        "SessionStart": frozenset({*_BASE, "model", "permission_mode", "source"}),
        "SessionEnd": frozenset({*_BASE, "reason"}),
        "PreCompact": _COMPACT,
        "PostCompact": _COMPACT,
    }
)
SENT: Final = frozenset().union(*SENT_BY_EVENT.values())

DEFAULT_REASON: Final = "denied by a hookd hook"
APPROVAL_NEEDED: Final = "this call needs the user's approval, which a Codex hook cannot ask for"
#: Events whose hookSpecificOutput may carry additionalContext.
_CONTEXT: Final = frozenset({"PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart"})


def _pre_tool_use(intent: Intent) -> dict[str, Any]:
    specific: dict[str, Any] = {}
    decision, reason = intent.tool_decision(APPROVAL_NEEDED)
    if decision == "deny":
        specific["permissionDecision"] = "deny"
        specific["permissionDecisionReason"] = reason or DEFAULT_REASON
    elif decision == "allow":
        specific["permissionDecision"] = "allow"
        specific["updatedInput"] = intent.updated_input
    if intent.context:
        specific["additionalContext"] = intent.context
    out: dict[str, Any] = {}
    if specific:
        out["hookSpecificOutput"] = {"hookEventName": "PreToolUse", **specific}
    if intent.system_message:
        out["systemMessage"] = intent.system_message
    return out


def _permission_request(intent: Intent) -> dict[str, Any]:
    decision: dict[str, Any] = {}
    if intent.halt or intent.decision == "deny":
        reason = intent.reason or intent.stop_reason or DEFAULT_REASON
        decision = {"behavior": "deny", "message": reason}
    elif intent.decision == "allow":
        decision = {"behavior": "allow"}
        if intent.updated_input is not None:
            decision["updatedInput"] = intent.updated_input
    out = _universal(intent, halt=False)
    if decision:
        out["hookSpecificOutput"] = {"hookEventName": "PermissionRequest", "decision": decision}
    return out


def _universal(intent: Intent, *, halt: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if halt and intent.halt:
        out["continue"] = False
        if intent.stop_reason:
            out["stopReason"] = intent.stop_reason
    if intent.system_message:
        out["systemMessage"] = intent.system_message
    return out


def _other(intent: Intent) -> dict[str, Any]:
    out = _universal(intent)
    if intent.block:
        out["decision"] = "block"
        out["reason"] = intent.block_reason or DEFAULT_REASON
    if intent.context and intent.event in _CONTEXT:
        out["hookSpecificOutput"] = {
            "hookEventName": intent.event,
            "additionalContext": intent.context,
        }
    return out


_BY_EVENT: Final = {"PreToolUse": _pre_tool_use, "PermissionRequest": _permission_request}


def encode(verdict: Verdict, call: HookCall) -> Encoded:
    """The smallest output Codex's closed schema for the event accepts."""
    failed = failed_closed(verdict, "Codex")
    if failed is not None:
        return failed
    intent = Intent.of(verdict)
    return Encoded(dumps(_BY_EVENT.get(verdict.event, _other)(intent)))


def _unshape(data: dict[str, Any]) -> dict[str, Any]:
    """Claude's input as Codex sends it (the kit's payloads): Codex's own fields added, the ones
    its event lacks dropped, and a shell command's result as the text of its output."""
    data.setdefault("turn_id", "turn-1")
    data.setdefault("model", "gpt-5-codex")
    data.setdefault("permission_mode", "default")
    response = data.get("tool_response")
    if data.get("tool_name") == "Bash" and isinstance(response, dict) and "stdout" in response:
        data["tool_response"] = f"{response.get('stdout') or ''}{response.get('stderr') or ''}"
    sent = SENT_BY_EVENT.get(str(data.get("hook_event_name")), SENT)
    return {key: value for key, value in data.items() if key in sent}


DIALECT: Final = Dialect("codex", EVENTS, TOOLS, encode, sent=SENT, unshape=_unshape)
