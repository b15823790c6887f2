"""Factory Droid (``@factory/cli``, binary ``droid``): Claude's events, its own tools and answers.

Droid copied Claude Code's command hook (JSON on stdin, exit 2 + stderr blocks) and its event
names, but names its tools and their arguments its own way, and obeys only part of Claude's
output (observed with ``@factory/cli`` 0.225.1, its platform build 0.225.2, and read in its
bundle). Hooks live in ``.factory/hooks.json`` (the event map is the file's root, no
``{"hooks": ...}`` wrapper) or under ``hooks`` in ``.factory/settings.json``.

==============================  ============================================================
Droid                           Claude Code (what the hook sees)
==============================  ============================================================
Claude's event names            the same events; Droid has PreToolUse, PostToolUse,
                                Notification, UserPromptSubmit, Stop, SubagentStop,
                                PreCompact, SessionStart, SessionEnd (no PermissionRequest)
Execute                         Bash: ``summary`` -> ``description``, ``timeout`` (s) ->
                                ``timeout`` (ms), ``fireAndForget`` -> ``run_in_background``;
                                ``riskLevel`` and ``riskLevelReason`` stay as they are
Create / Edit                   Write / Edit (``old_str``, ``new_str``, ``change_all`` ->
                                ``old_string``, ``new_string``, ``replace_all``)
Read / Task                     Read / Task (the same arguments)
LS                              LS (``directory_path`` -> ``path``, ``ignorePatterns`` ->
                                ``ignore``)
Grep                            Grep (``glob_pattern`` -> ``glob``, ``case_insensitive`` ->
                                ``-i``, ``context_before/after`` -> ``-B``/``-A``,
                                ``context`` -> ``-C``, ``line_numbers`` -> ``-n``)
Glob                            Glob (``patterns`` kept, ``pattern`` added: the one pattern,
                                or ``{a,b}``; ``folder`` -> ``path``)
SubagentStop                    ``task_name`` -> ``agent_type``, ``task_result`` ->
                                ``last_assistant_message``
==============================  ============================================================

Droid sends no ``tool_use_id``; its PostToolUse ``tool_response`` is a string (the text the
model gets); ``permission_mode`` is its autonomy (``auto-high``, ``off``, ...). Answers:

==============================  ============================================================
Claude answer (merged)          what Droid receives
==============================  ============================================================
PreToolUse deny + reason        exit 2, the reason on stderr (the model gets ``Error:
                                <reason>`` as the tool's result). Not Droid's JSON deny: of
                                several hooks' JSON decisions the first listed wins, so
                                another hook's earlier ``allow`` would override it; an exit 2
                                denies whatever the others answered
PreToolUse decision: block      the same deny (Droid ignores ``decision`` on PreToolUse)
PreToolUse ask                  a deny whose reason says the call needs the user's approval
                                (Droid only logs an ``ask``: the call would go on)
PreToolUse allow (+ reason)     ``permissionDecision: "allow"``: Droid skips its own
                                autonomy check, as Claude Code skips its prompt
PreToolUse updatedInput         ``updatedInput`` in Droid's argument names (Droid merges it
                                over the model's arguments; a new command drops the model's
                                ``riskLevel``), with ``allow`` when the answer allows
PreToolUse defer                no output
continue: false                 ``continue: false`` + ``stopReason`` (Droid ends the run)
UserPromptSubmit block          exit 2, the reason on stderr (Droid ignores ``decision``)
PostToolUse block               exit 2, the reason on stderr: Droid gives it to the model
Stop / SubagentStop block       ``decision: "block"`` + ``reason`` (Stop: keep going;
                                Droid 0.225 reads no answer to SubagentStop at all)
PreCompact block                exit 2 (Droid skips the compaction)
additionalContext               ``hookSpecificOutput.additionalContext`` where Droid reads
                                it: PostToolUse, UserPromptSubmit, SessionStart
systemMessage                   ``systemMessage`` where Droid shows it: PostToolUse, Stop
hookd cannot answer             blocking event: exit 2 + one line on stderr; else exit 1
==============================  ============================================================

What fails open in Droid (the tool runs): exit 1 (its stderr is put before the tool's
result), stdout that is not JSON, a hook past its ``timeout`` (seconds, default 60). So
hookd's own failure on a blocking event is always exit 2, as is its deny. Droid combines
several hooks' answers by order, not by strength: ``continue: false`` from any hook first,
then the first listed hook's ``permissionDecision`` (so an ``allow`` from hookd listed before
another hook's JSON deny lets the call run), then any exit 2.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from hookd.agents.dialect import Dialect, Encoded, Intent, dumps, failed_closed

if TYPE_CHECKING:
    from hookd.engine.call import HookCall
    from hookd.engine.verdict import Verdict

__all__ = [
    "APPROVAL_NEEDED",
    "DEFAULT_REASON",
    "DIALECT",
    "EVENTS",
    "SENT_BY_EVENT",
    "TOOLS",
    "claude_tool_input",
    "droid_tool_input",
]

EVENTS: Final = MappingProxyType(
    {
        name: name
        for name in (
            "PreToolUse",
            "PostToolUse",
            "Notification",
            "UserPromptSubmit",
            "Stop",
            "SubagentStop",
            "PreCompact",
            "SessionStart",
            "SessionEnd",
        )
    }
)
#: Droid's tool names -> Claude's. A matcher in Droid's own file is a regular expression on
#: Droid's names, unanchored: ``"Bash"`` matches nothing, ``"Task"`` also ``TaskOutput``.
TOOLS: Final = MappingProxyType(
    {
        "Execute": "Bash",
        "Create": "Write",
        "Edit": "Edit",
        "Read": "Read",
        "LS": "LS",
        "Grep": "Grep",
        "Glob": "Glob",
        "Task": "Task",
    }
)
#: Top-level renames (Droid's SubagentStop names the subagent's task, not an agent).
FIELDS: Final = MappingProxyType(
    {"task_name": "agent_type", "task_result": "last_assistant_message"}
)

_BASE = ("session_id", "transcript_path", "cwd", "permission_mode", "hook_event_name")
_TOOL = (*_BASE, "tool_name", "tool_input")
#: The top-level fields Droid sends, by event (observed, and read in its bundle).
SENT_BY_EVENT: Final = MappingProxyType(
    {
        "PreToolUse": frozenset(_TOOL),
        "PostToolUse": frozenset({*_TOOL, "tool_response"}),
        "Notification": frozenset({*_BASE, "message_id", "message", "notification_type"}),
        "UserPromptSubmit": frozenset({*_BASE, "message_id", "prompt", "has_images"}),
        "Stop": frozenset(
            {*_BASE, "message_id", "stop_hook_active", "tool_execution_count", "elapsed_time"}
        ),
        "SubagentStop": frozenset(
            {*_BASE, "task_name", "task_result", "task_error", "stop_hook_active"}
        ),
        "PreCompact": frozenset(
            {
                *_BASE,
                "trigger",
                "custom_instructions",
                "message_count",
                "estimated_tokens",
                "message_id",
            }
        ),
        "SessionStart": frozenset(
            {
                *_BASE,
                "source",
                "previous_session_id",
                "calling_session_id",
                "message_id",
                "CLAUDE_ENV_FILE",
            }
        ),
        "SessionEnd": frozenset(
            {*_BASE, "message_id", "reason", "session_duration_ms", "message_count"}
        ),
    }
)
SENT: Final = frozenset().union(*SENT_BY_EVENT.values())

DEFAULT_REASON: Final = "denied by a hookd hook"
APPROVAL_NEEDED: Final = "this call needs the user's approval, which a Droid hook cannot ask for"
#: Events whose ``hookSpecificOutput.additionalContext`` Droid gives the model.
_CONTEXT: Final = frozenset({"PostToolUse", "UserPromptSubmit", "SessionStart"})
#: Events whose ``systemMessage`` Droid shows the user (elsewhere it only logs it).
_SHOWN: Final = frozenset({"PostToolUse", "Stop"})
#: Events answered with Claude's ``decision: "block"``: Droid reads it at Stop (and reads no
#: SubagentStop answer at all); elsewhere a block is exit 2, which Droid reads.
_DECISION: Final = frozenset({"Stop", "SubagentStop"})

# -- tool arguments: Droid's names <-> Claude's ------------------------------------------

#: Plain renames of a tool's argument, Droid's name -> Claude's.
_RENAMES: Final[Mapping[str, Mapping[str, str]]] = MappingProxyType(
    {
        "Execute": {"summary": "description", "fireAndForget": "run_in_background"},
        "Edit": {"old_str": "old_string", "new_str": "new_string", "change_all": "replace_all"},
        "LS": {"directory_path": "path", "ignorePatterns": "ignore"},
        "Grep": {
            "glob_pattern": "glob",
            "case_insensitive": "-i",
            "context_before": "-B",
            "context_after": "-A",
            "context": "-C",
            "line_numbers": "-n",
        },
        "Glob": {"folder": "path"},
    }
)
_MS_PER_S: Final = 1000


def _glob_pattern(patterns: Any) -> str | None:
    """Claude's one ``pattern`` for Droid's list: the pattern itself, or ``{a,b}``."""
    if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
        return None
    if len(patterns) == 1:
        return str(patterns[0])
    return "{" + ",".join(patterns) + "}" if patterns else None


def _seconds(ms: Any) -> Any:
    """Claude's milliseconds as Droid's seconds (whole when they divide)."""
    if isinstance(ms, bool) or not isinstance(ms, int | float):
        return ms
    seconds = ms / _MS_PER_S
    return int(seconds) if seconds == int(seconds) else seconds


def _millis(seconds: Any) -> Any:
    if isinstance(seconds, bool) or not isinstance(seconds, int | float):
        return seconds
    ms = seconds * _MS_PER_S
    return int(ms) if ms == int(ms) else ms


def claude_tool_input(droid_tool: str, args: Any) -> Any:
    """Droid's arguments for ``droid_tool`` in Claude's names (other tools: as they are)."""
    if not isinstance(args, dict):
        return args
    renames = _RENAMES.get(droid_tool, {})
    out = {renames.get(key, key): value for key, value in args.items()}
    if droid_tool == "Execute" and "timeout" in out:
        out["timeout"] = _millis(out["timeout"])
    if droid_tool == "Glob" and "pattern" not in out:
        pattern = _glob_pattern(out.get("patterns"))
        if pattern is not None:
            out["pattern"] = pattern
    return out


def droid_tool_input(droid_tool: str, args: Any) -> Any:
    """Claude-named arguments back in Droid's names for ``droid_tool`` (an ``updatedInput``)."""
    if not isinstance(args, dict):
        return args
    back = {ours: theirs for theirs, ours in _RENAMES.get(droid_tool, {}).items()}
    out = {back.get(key, key): value for key, value in args.items()}
    if droid_tool == "Execute" and "timeout" in out:
        out["timeout"] = _seconds(out["timeout"])
    if droid_tool == "Glob" and "pattern" in out:
        pattern = out.pop("pattern")
        if isinstance(pattern, str) and pattern != _glob_pattern(out.get("patterns")):
            out["patterns"] = [pattern]  # the hook changed it: its one pattern wins
    return out


def _reshape(data: dict[str, Any]) -> dict[str, Any]:
    """A decoded payload's tool arguments in Claude's names (the tool is still Droid's)."""
    tool = data.get("tool_name")
    if isinstance(tool, str) and "tool_input" in data:
        data["tool_input"] = claude_tool_input(tool, data["tool_input"])
    return data


def _unshape(data: dict[str, Any]) -> dict[str, Any]:
    """Claude's input as Droid sends it (the kit's payloads): Droid's argument names, a shell
    result as text, its autonomy as the permission mode, only the fields its event has."""
    tool = data.get("tool_name")
    if isinstance(tool, str) and "tool_input" in data:
        data["tool_input"] = droid_tool_input(tool, data["tool_input"])
    response = data.get("tool_response")
    if isinstance(response, dict) and "stdout" in response:
        data["tool_response"] = f"{response.get('stdout') or ''}{response.get('stderr') or ''}"
    data.setdefault("permission_mode", "auto-high")
    sent = SENT_BY_EVENT.get(str(data.get("hook_event_name")), SENT)
    return {key: value for key, value in data.items() if key in sent}


# -- answers -------------------------------------------------------------------------------


def _tool_decision(intent: Intent) -> tuple[str | None, str | None]:
    """The PreToolUse decision Droid obeys, and its reason."""
    if intent.block:
        return "deny", intent.block_reason
    if intent.decision == "ask":
        return "deny", f"{APPROVAL_NEEDED}: {intent.reason}" if intent.reason else APPROVAL_NEEDED
    if intent.decision in ("deny", "allow"):
        return intent.decision, intent.reason
    return None, None  # no decision, or defer: Droid's own checks decide


def _droid_tool(call: HookCall) -> str:
    """Droid's name of the call's tool (a call the kit built carries Claude's name only)."""
    if call.agent_tool:
        return call.agent_tool
    claude = call.input.get("tool_name")
    return next((theirs for theirs, ours in TOOLS.items() if ours == claude), str(claude or ""))


def _halt(intent: Intent) -> dict[str, Any]:
    out: dict[str, Any] = {"continue": False}
    if intent.stop_reason:
        out["stopReason"] = intent.stop_reason
    return out


def _pre_tool_use(intent: Intent, call: HookCall) -> Encoded:
    if intent.halt:
        return Encoded(dumps(_halt(intent)))
    decision, reason = _tool_decision(intent)
    if decision == "deny":  # exit 2 outranks any other hook's JSON allow; a JSON deny does not
        return Encoded(exit_code=2, stderr=reason or DEFAULT_REASON)
    specific: dict[str, Any] = {}
    if decision == "allow":
        specific["permissionDecision"] = "allow"
        if reason:
            specific["permissionDecisionReason"] = reason
    if intent.updated_input is not None:
        specific["updatedInput"] = droid_tool_input(_droid_tool(call), intent.updated_input)
    if not specific:
        return Encoded()
    return Encoded(dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", **specific}}))


def _other(intent: Intent, call: HookCall) -> Encoded:
    event = intent.event
    if intent.halt:
        return Encoded(dumps(_halt(intent)))
    if intent.block and event not in _DECISION:  # Droid reads exit 2 there, not ``decision``
        reason = intent.block_reason or DEFAULT_REASON
        return Encoded(exit_code=2, stderr=reason)
    out: dict[str, Any] = {}
    if intent.block:
        out["decision"] = "block"
        out["reason"] = intent.block_reason or DEFAULT_REASON
    if intent.context and event in _CONTEXT:
        out["hookSpecificOutput"] = {"hookEventName": event, "additionalContext": intent.context}
    if intent.system_message and event in _SHOWN:
        out["systemMessage"] = intent.system_message
    return Encoded(dumps(out))


_BY_EVENT: Final[Mapping[str, Callable[[Intent, HookCall], Encoded]]] = MappingProxyType(
    {"PreToolUse": _pre_tool_use}
)


def encode(verdict: Verdict, call: HookCall) -> Encoded:
    """The answer Droid obeys for the merged output; exit 2 when hookd could not answer a
    blocking call (Droid runs the tool on exit 1, on output it cannot parse, on a timeout)."""
    failed = failed_closed(verdict, "Droid")
    if failed is not None:
        return failed
    intent = Intent.of(verdict)
    return _BY_EVENT.get(verdict.event, _other)(intent, call)


DIALECT: Final = Dialect(
    "droid", EVENTS, TOOLS, encode, fields=FIELDS, sent=SENT, reshape=_reshape, unshape=_unshape
)
