"""Copilot CLI (``@github/copilot``): two casings of events, each with its own payload and answer.

An event named in camelCase (``preToolUse``) carries a camelCase payload
(``sessionId``, ``toolName``, ``toolArgs``, ``toolResult``, ``timestamp`` in
ms) and is answered in Copilot's own flat shape; one named in PascalCase
(``PreToolUse``) carries Claude's snake_case fields (``tool_result`` for
``tool_response``) and is answered in Claude Code's shape.

==================================  ==============================================
Copilot CLI                         Claude Code (what the hook sees)
==================================  ==============================================
preToolUse / PreToolUse             PreToolUse
permissionRequest                   PermissionRequest
postToolUse / PostToolUse           PostToolUse
postToolUseFailure                  PostToolUseFailure
userPromptSubmitted /               UserPromptSubmit
UserPromptSubmit
agentStop / Stop                    Stop
subagentStart / subagentStop        SubagentStart / SubagentStop
sessionStart / sessionEnd           SessionStart / SessionEnd
(and PascalCase)
preCompact / notification           PreCompact / Notification
errorOccurred                       unsupported
bash, powershell                    Bash (``context.agent_tool`` tells them apart)
create / edit / view                Write / Edit / Read
glob / grep                         Glob / Grep
sessionId, toolName, toolArgs,      session_id, tool_name, tool_input,
toolResult, tool_result             tool_response (a ``toolArgs`` JSON string is
                                    parsed)
==================================  ==============================================

Answers in the camelCase shape:

==================================  ==============================================
Claude answer (merged)              what Copilot CLI receives
==================================  ==============================================
PreToolUse deny / allow / ask       ``permissionDecision`` + ``permissionDecisionReason``
                                    (required: hookd supplies one when a hook gave none)
PreToolUse continue: false, block   a deny with the stop reason
updatedInput                        ``modifiedArgs``
PermissionRequest decision          ``behavior`` + ``message``; ``interrupt: true`` halts
decision: block (Stop, prompt, ...) ``decision: "block"`` + ``reason``
additionalContext                   ``additionalContext`` (notification and
                                    subagentStart only; dropped elsewhere)
continue: false elsewhere,          dropped (Copilot has no field for them there)
systemMessage
hookd cannot answer                 blocking event: exit 2 + one line on stderr (Copilot
                                    also denies on any non-zero exit); else exit 1
==================================  ==============================================
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any, Final

from hookd.agents import claude
from hookd.agents.dialect import Dialect, Encoded, Intent, dumps, failed_closed
from hookd.engine.call import HookCall
from hookd.engine.verdict import Verdict

__all__ = ["DEFAULT_REASON", "DIALECT"]

_CAMEL: Final = {
    "preToolUse": "PreToolUse",
    "permissionRequest": "PermissionRequest",
    "postToolUse": "PostToolUse",
    "postToolUseFailure": "PostToolUseFailure",
    "userPromptSubmitted": "UserPromptSubmit",
    "agentStop": "Stop",
    "subagentStart": "SubagentStart",
    "subagentStop": "SubagentStop",
    "sessionStart": "SessionStart",
    "sessionEnd": "SessionEnd",
    "preCompact": "PreCompact",
    "notification": "Notification",
}
_PASCAL: Final = {
    name: name
    for name in (
        "PreToolUse",
        "PostToolUse",
        "UserPromptSubmit",
        "Stop",
        "SessionStart",
        "SessionEnd",
    )
}
EVENTS: Final = MappingProxyType({**_CAMEL, **_PASCAL})
TOOLS: Final = MappingProxyType(
    {
        "bash": "Bash",
        "powershell": "Bash",
        "create": "Write",
        "edit": "Edit",
        "view": "Read",
        "glob": "Glob",
        "grep": "Grep",
    }
)
#: Agent field -> Claude field; the camelCase names last, so the kit builds camelCase payloads.
FIELDS: Final = MappingProxyType(
    {
        "tool_result": "tool_response",
        "sessionId": "session_id",
        "toolName": "tool_name",
        "toolArgs": "tool_input",
        "toolResult": "tool_response",
        "transcriptPath": "transcript_path",
    }
)
_SNAKE: Final = {"sessionId": "session_id", "toolName": "tool_name", "toolArgs": "tool_input",
                 "toolResult": "tool_result", "transcriptPath": "transcript_path"}  # fmt: skip
DEFAULT_REASON: Final = "denied by a hookd hook"
#: The reason sent when the hook gave none (Copilot requires one).
_DEFAULT_REASONS: Final = {
    "deny": DEFAULT_REASON,
    "allow": "allowed by a hookd hook",
    "ask": "a hookd hook asks for the user's approval",
}
_CONTEXT: Final = frozenset({"Notification", "SubagentStart"})


def _reshape(data: dict[str, Any]) -> dict[str, Any]:
    """A ``toolArgs`` sent as a JSON string becomes the object it encodes."""
    args = data.get("tool_input")
    if isinstance(args, str):
        try:
            parsed = json.loads(args)
        except ValueError:
            return data
        if isinstance(parsed, dict):
            data["tool_input"] = parsed
    return data


def _unshape(data: dict[str, Any]) -> dict[str, Any]:
    """The kit's payload: camelCase fields for a camelCase event, snake_case for PascalCase."""
    event = data.get("hook_event_name", "")
    if event in _CAMEL:
        data.pop("hook_event_name", None)
        data["timestamp"] = int(datetime.now(UTC).timestamp() * 1000)
        return data
    data = {_SNAKE.get(key, key): value for key, value in data.items()}
    tool = data.get("tool_name")
    if isinstance(tool, str):  # the PascalCase payload names tools as Claude does ("Bash")
        data["tool_name"] = TOOLS.get(tool, tool)
    data["timestamp"] = datetime.now(UTC).isoformat()
    return data


def _pre_tool_use(intent: Intent) -> dict[str, Any]:
    decision, reason = intent.decision, intent.reason
    if intent.halt or intent.block:
        decision, reason = "deny", intent.stop_reason or intent.block_reason
    out: dict[str, Any] = {}
    if decision in ("allow", "deny", "ask"):
        out["permissionDecision"] = decision
        out["permissionDecisionReason"] = reason or _DEFAULT_REASONS[decision]
    if intent.updated_input is not None and decision != "deny":
        out["modifiedArgs"] = intent.updated_input
    return out


def _permission_request(intent: Intent) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if intent.halt or intent.decision == "deny":
        out["behavior"] = "deny"
        out["message"] = intent.reason or intent.stop_reason or DEFAULT_REASON
    elif intent.decision == "allow":
        out["behavior"] = "allow"
    if intent.halt or intent.interrupt:
        out["interrupt"] = True
    return out


def _other(intent: Intent) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if intent.block:
        out["decision"] = "block"
        out["reason"] = intent.block_reason or DEFAULT_REASON
    if intent.context and intent.event in _CONTEXT:
        out["additionalContext"] = intent.context
    return out


_BY_EVENT: Final = {"PreToolUse": _pre_tool_use, "PermissionRequest": _permission_request}


def encode(verdict: Verdict, call: HookCall) -> Encoded:
    """Copilot's flat answer for a camelCase event; Claude's for a PascalCase one."""
    if call.agent_event in _PASCAL:
        return claude.encode(verdict, call)
    failed = failed_closed(verdict, "Copilot CLI")
    if failed is not None:
        return failed
    intent = Intent.of(verdict)
    return Encoded(dumps(_BY_EVENT.get(verdict.event, _other)(intent)))


DIALECT: Final = Dialect(
    "copilot",
    EVENTS,
    TOOLS,
    encode,
    fields=FIELDS,
    reshape=_reshape,
    unshape=_unshape,
)
