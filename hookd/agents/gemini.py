"""Gemini CLI (``@google/gemini-cli``): its own event and tool names, Claude's answers reshaped.

The tables are those of Gemini's own ``gemini hooks migrate --from-claude``.

===============================  ========================================================
Gemini CLI                       Claude Code (what the hook sees)
===============================  ========================================================
BeforeTool / AfterTool           PreToolUse / PostToolUse
BeforeAgent / AfterAgent         UserPromptSubmit / Stop (``prompt_response`` is
                                 ``last_assistant_message``)
SessionStart / SessionEnd        SessionStart / SessionEnd
PreCompress / Notification       PreCompact / Notification
BeforeModel, AfterModel,         unsupported (no Claude counterpart)
BeforeToolSelection
run_shell_command                Bash
write_file / replace / read_file Write / Edit / Read
glob / grep / ls                 Glob / Grep / LS
===============================  ========================================================

Tool arguments pass through unchanged. Answers:

===============================  ========================================================
Claude answer (merged)           what Gemini CLI receives
===============================  ========================================================
deny / decision: block           ``decision: "deny"`` + ``reason`` (AfterAgent: keep going)
allow / ask                      ``decision: "allow"`` / ``"ask"`` (+ ``reason`` if given)
defer                            no decision
updatedInput                     ``hookSpecificOutput.tool_input`` (replaces the args, as
                                 Claude's does)
additionalContext                ``hookSpecificOutput.additionalContext`` (Gemini reads it
                                 at BeforeAgent and AfterTool only)
continue: false                  ``continue: false`` + ``stopReason``
systemMessage                    ``systemMessage``
hookd cannot answer              blocking event: exit 2 + one line on stderr; else exit 1
===============================  ========================================================
"""

from __future__ import annotations

from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any, Final

from hookd.agents.dialect import Dialect, Encoded, Intent, dumps, failed_closed
from hookd.engine.call import HookCall
from hookd.engine.verdict import Verdict

__all__ = ["DEFAULT_REASON", "DIALECT", "TOOLS"]

EVENTS: Final = MappingProxyType(
    {
        "BeforeTool": "PreToolUse",
        "AfterTool": "PostToolUse",
        "BeforeAgent": "UserPromptSubmit",
        "AfterAgent": "Stop",
        "SessionStart": "SessionStart",
        "SessionEnd": "SessionEnd",
        "PreCompress": "PreCompact",
        "Notification": "Notification",
    }
)
TOOLS: Final = MappingProxyType(
    {
        "run_shell_command": "Bash",
        "write_file": "Write",
        "replace": "Edit",
        "read_file": "Read",
        "glob": "Glob",
        "grep": "Grep",
        "ls": "LS",
    }
)
FIELDS: Final = MappingProxyType({"prompt_response": "last_assistant_message"})
#: The top-level fields Gemini CLI sends (the kit's payloads carry only these).
SENT: Final = frozenset(
    {
        "session_id", "transcript_path", "cwd", "hook_event_name", "timestamp", "tool_name",
        "tool_input", "mcp_context", "original_request_name", "tool_response", "prompt",
        "prompt_response", "stop_hook_active", "source", "reason", "message",
        "notification_type", "trigger",
    }
)  # fmt: skip
DEFAULT_REASON: Final = "denied by a hookd hook"


def _decision(intent: Intent) -> tuple[str | None, str | None]:
    if intent.block:
        return "deny", intent.block_reason
    if intent.decision in ("allow", "deny", "ask"):
        return intent.decision, intent.reason
    return None, None


def _answer(intent: Intent) -> dict[str, Any]:
    out: dict[str, Any] = {}
    decision, reason = _decision(intent)
    if decision is not None:
        out["decision"] = decision
        if reason or decision == "deny":
            out["reason"] = reason or DEFAULT_REASON
    specific: dict[str, Any] = {}
    if intent.updated_input is not None and decision != "deny":
        specific["tool_input"] = intent.updated_input
    if intent.context:
        specific["additionalContext"] = intent.context
    if specific:
        out["hookSpecificOutput"] = specific
    if intent.halt:
        out["continue"] = False
        if intent.stop_reason:
            out["stopReason"] = intent.stop_reason
    if intent.system_message:
        out["systemMessage"] = intent.system_message
    return out


def encode(verdict: Verdict, call: HookCall) -> Encoded:
    """Gemini's ``decision``/``reason`` and ``hookSpecificOutput`` for the merged answer."""
    failed = failed_closed(verdict, "Gemini CLI")
    if failed is not None:
        return failed
    return Encoded(dumps(_answer(Intent.of(verdict))))


def _unshape(data: dict[str, Any]) -> dict[str, Any]:
    data.setdefault("timestamp", datetime.now(UTC).isoformat())
    return data


DIALECT: Final = Dialect(
    "gemini", EVENTS, TOOLS, encode, fields=FIELDS, sent=SENT, unshape=_unshape
)
