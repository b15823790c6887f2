"""pi (``@mariozechner/pi-coding-agent``): its extension events, forwarded by ``hookd-pi.ts``.

pi has no command hooks: an extension (``hookd/agents/plugins/hookd-pi.ts``, copied into
``.pi/extensions/`` with its settings line filled in) POSTs each event it routes to
``/agent/pi/<pi event>`` with a body in Claude's field names and pi's own values, and obeys
the small JSON answer this encoder gives (the extension's header documents both).

===============================  ========================================================
pi (extension event)             Claude Code (what the hook sees)
===============================  ========================================================
tool_call                        PreToolUse
tool_result                      PostToolUse (``tool_response`` is pi's ``{content,
                                 details, is_error}``: a failed command is one too)
input                            UserPromptSubmit (``source``: interactive -> user,
                                 rpc -> sdk, extension -> system)
agent_end                        Stop
session_start                    SessionStart (``source``: pi's reason; new -> clear)
session_shutdown                 SessionEnd (``reason``: quit -> prompt_input_exit,
                                 new -> clear; reload, fork -> other)
bash / read / edit / write       Bash / Read / Edit / Write
grep / find / ls                 Grep / Glob / LS
===============================  ========================================================

Tool arguments pass through unchanged: pi's own (``read``/``write``/``edit`` take ``path``,
not ``file_path``; ``edit`` takes ``edits: [{oldText, newText}]``). Answers:

===============================  ========================================================
Claude answer (merged)           what the extension receives (and does)
===============================  ========================================================
PreToolUse deny, decision: block ``block: true`` + ``reason`` (pi blocks the call; the model
                                 sees the reason as the tool's result)
PreToolUse ask                   ``ask: true`` + ``reason`` (a confirm dialog where pi has a
                                 UI; in ``-p`` mode a block)
PreToolUse allow + updatedInput  ``input`` (the arguments, replaced in place)
PreToolUse allow / defer         nothing
additionalContext                ``context`` (after the tool's result; before the prompt for
                                 UserPromptSubmit and SessionStart)
PostToolUse decision: block      ``block: true`` + ``reason`` (the result becomes an error
                                 with the reason appended)
UserPromptSubmit block           ``block: true`` + ``reason`` (the prompt is not run)
Stop decision: block             ``block: true`` + ``reason`` (sent as a follow-up prompt;
                                 ``pi -p`` exits without running it)
continue: false                  ``halt: true`` + ``reason`` (a block, then ``ctx.abort()``)
systemMessage                    ``systemMessage`` (shown to the user)
hookd cannot answer              blocking event: exit 2 + one line (the extension blocks
                                 with it); else exit 1 (shown, not obeyed)
===============================  ========================================================
"""

from __future__ import annotations

import os
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from hookd.agents.dialect import Dialect, Encoded, Intent, dumps, failed_closed
from hookd.agents.plugin_settings import Routes, routes_value, with_settings

if TYPE_CHECKING:
    from hookd.engine.verdict import Verdict

__all__ = [
    "APPROVAL_NEEDED",
    "DEFAULT_REASON",
    "DIALECT",
    "EVENTS",
    "PLUGIN",
    "TOOLS",
    "extension_source",
]

EVENTS: Final = MappingProxyType(
    {
        "tool_call": "PreToolUse",
        "tool_result": "PostToolUse",
        "input": "UserPromptSubmit",
        "agent_end": "Stop",
        "session_start": "SessionStart",
        "session_shutdown": "SessionEnd",
    }
)
TOOLS: Final = MappingProxyType(
    {
        "bash": "Bash",
        "read": "Read",
        "edit": "Edit",
        "write": "Write",
        "grep": "Grep",
        "find": "Glob",
        "ls": "LS",
    }
)
#: pi's values of ``source`` (session_start's reason, input's source) -> Claude's, where one
#: means the same; the others pass as they are.
SOURCES: Final = MappingProxyType(
    {"new": "clear", "interactive": "user", "rpc": "sdk", "extension": "system"}
)
#: session_shutdown's reason -> SessionEnd's.
END_REASONS: Final = MappingProxyType(
    {
        "quit": "prompt_input_exit",
        "new": "clear",
        "resume": "resume",
        "reload": "other",
        "fork": "other",
    }
)
#: The top-level fields the extension sends (the kit's payloads carry only these).
SENT: Final = frozenset(
    {
        "hook_event_name", "session_id", "transcript_path", "cwd", "model", "tool_name",
        "tool_input", "tool_use_id", "tool_response", "prompt", "source", "stop_hook_active",
        "last_assistant_message", "reason",
    }
)  # fmt: skip

DEFAULT_REASON: Final = "denied by a hookd hook"
APPROVAL_NEEDED: Final = "a hookd hook asks for the user's approval"
#: The extension source shipped beside this module.
PLUGIN: Final = os.path.join(os.path.dirname(__file__), "plugins", "hookd-pi.ts")


def _reshape(data: dict[str, Any]) -> dict[str, Any]:
    source, reason = data.get("source"), data.get("reason")
    if isinstance(source, str):
        data["source"] = SOURCES.get(source, source)
    if isinstance(reason, str) and "tool_name" not in data:
        data["reason"] = END_REASONS.get(reason, reason)
    return data


def _unshape(data: dict[str, Any]) -> dict[str, Any]:
    """The kit's payload: Claude's values of ``source`` and ``reason`` back to pi's."""
    back = {ours: theirs for theirs, ours in SOURCES.items()}
    source = data.get("source")
    if isinstance(source, str):
        data["source"] = back.get(source, source)
    if data.get("hook_event_name") == "session_shutdown":
        ends = {ours: theirs for theirs, ours in END_REASONS.items()}
        reason = data.get("reason")
        data["reason"] = ends.get(reason, reason) if isinstance(reason, str) else "quit"
    return {key: value for key, value in data.items() if key in SENT}


def _pre_tool_use(intent: Intent) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if intent.halt:
        out.update(block=True, halt=True, reason=intent.stop_reason or DEFAULT_REASON)
    elif intent.block:
        out.update(block=True, reason=intent.block_reason or DEFAULT_REASON)
    elif intent.decision == "deny":
        out.update(block=True, reason=intent.reason or DEFAULT_REASON)
    elif intent.decision == "ask":
        out.update(ask=True, reason=intent.reason or APPROVAL_NEEDED)
        if intent.updated_input is not None:
            out["input"] = intent.updated_input
    elif intent.updated_input is not None and intent.decision in (None, "allow"):
        out["input"] = intent.updated_input
    if intent.context and not out.get("block"):
        out["context"] = intent.context
    return out


def _other(intent: Intent) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if intent.halt:
        out.update(halt=True, reason=intent.stop_reason or DEFAULT_REASON)
    elif intent.block:
        out.update(block=True, reason=intent.block_reason or DEFAULT_REASON)
    if intent.context and intent.event in ("PostToolUse", "UserPromptSubmit", "SessionStart"):
        out["context"] = intent.context
    return out


def encode(verdict: Verdict, call: object) -> Encoded:
    """The answer ``hookd-pi.ts`` reads: ``block``/``ask``/``halt`` + ``reason``, ``input``,
    ``context``, ``systemMessage`` (nothing at all when the hooks ask nothing); the call (a
    ``HookCall``) is not needed."""
    failed = failed_closed(verdict, "pi")
    if failed is not None:
        return failed
    intent = Intent.of(verdict)
    out = _pre_tool_use(intent) if verdict.event == "PreToolUse" else _other(intent)
    if intent.system_message:
        out["systemMessage"] = intent.system_message
    return Encoded(dumps(out))


def extension_source(
    *,
    port: int,
    token_file: str,
    ready_file: str,
    hookd: str = "",
    module: str = "",
    routes: Routes | None = None,
    fail_open: bool = False,
    key: str = "",
    source: str | None = None,
) -> str:
    """``hookd-pi.ts`` with its settings line naming one daemon: ``routes`` maps each pi event
    to forward to its deadline in seconds and whether it fails closed (default: ``tool_call``
    and ``input``, 55 s, closed); ``key`` marks the module's install. No token: the extension
    reads ``token_file`` at each call."""
    routes = routes or {"tool_call": (55, True), "input": (55, True)}
    settings = {
        "key": key, "port": port, "tokenFile": token_file, "readyFile": ready_file,
        "hookd": hookd, "module": module, "failOpen": fail_open,
        "routes": routes_value(routes, EVENTS, "pi"),
    }  # fmt: skip
    text = source if source is not None else Path(PLUGIN).read_text(encoding="utf-8")
    return with_settings(text, settings, "hookd-pi.ts")


DIALECT: Final = Dialect("pi", EVENTS, TOOLS, encode, sent=SENT, reshape=_reshape, unshape=_unshape)
