"""Cline CLI (``cline`` 3.0.65): hook files named after the event, a nested payload, and no
per-call deny, so a deny replaces the call's input.

Cline runs every file named ``<Event>`` (any case; no extension or one of ``.sh .bash .zsh
.py .js .mjs .cjs .ts .mts .cts .ps1``) in ``<project>/.clinerules/hooks/``,
``<project>/.cline/hooks/``, ``~/.cline/hooks/`` and ``~/Documents/Cline/Hooks/``, the JSON
payload on stdin. Only ``PreToolUse`` and ``PostToolUse`` are waited for (120 s, then
SIGKILL and the tool runs); the others run detached and their output is never read. The
exit code is ignored: only stdout counts, parsed as one JSON object (a line
``HOOK_CONTROL<TAB>{...}`` wins over the rest); empty stdout, invalid JSON, a crash or a
timeout all let the tool run.

====================================  ==================================================
Cline (hook file / ``hookName``)      Claude Code (what the hook sees)
====================================  ==================================================
PreToolUse / tool_call                PreToolUse
PostToolUse / tool_result             PostToolUse (``tool_result.output`` is
                                      ``tool_response``; a shell call's as
                                      ``{stdout, stderr, ...}`` plus ``results``)
UserPromptSubmit / prompt_submit      UserPromptSubmit (``userPromptSubmit.prompt``)
TaskStart / TaskResume                SessionStart (``source`` startup / resume)
TaskComplete / agent_end              Stop (``turn.outputText`` is
                                      ``last_assistant_message``)
TaskError / agent_error               StopFailure (``error`` "unknown",
                                      ``error_details`` the message)
SessionShutdown                       SessionEnd
TaskCancel, PreCompact                unsupported (PreCompact never runs in 3.0.65)
sessionContext.rootSessionId          session_id (else ``taskId``)
workspaceRoots[0]                     cwd
tool_call.id / tool_result.id         tool_use_id
agent_id (main agent)                 ``cline_agent_id`` (Claude's ``agent_id`` means a
                                      subagent: kept only when ``parent_agent_id`` is set)
run_commands ``{commands}``           Bash ``{command: the commands joined by newlines,
                                      commands}``
editor ``{path, new_text}``           Write ``{file_path, content}`` (creates a file)
editor ``{path, old_text, new_text}`` Edit ``{file_path, old_string, new_string}``
editor ``{..., insert_line}``         Edit ``{file_path, old_string: "", new_string,
                                      insert_line}``
read_files ``{files: [{path, ...}]}`` Read ``{file_path (the first), offset, limit,
                                      file_paths (all), files}``
search_codebase ``{queries}``         Grep ``{pattern: the queries joined by "|", queries}``
fetch_web_content ``{requests}``      WebFetch ``{url, prompt (the first), requests}``
====================================  ==================================================

Cline's own fields stay in the input beside Claude's. Tool arguments come from
``tool_call.input`` (typed); ``preToolUse.parameters`` (each value a string, arrays and
objects JSON-encoded) is decoded only when that is missing. Answers (PreToolUse):

====================================  ==================================================
Claude answer (merged)                what Cline receives
====================================  ==================================================
allow, defer, nothing                 no output
deny + reason (or decision: block;    ``run_commands``: ``overrideInput`` whose one
ask, which Cline cannot: a deny       command prints the reason (shell-quoted) to
saying the call needs approval)       stderr and exits 1; the model reads it as the
                                      tool's result. Cline's other built-in tools:
                                      ``overrideInput: null`` (the tool refuses it as
                                      invalid input, nothing runs) and the reason as
                                      ``contextModification``. Any other tool (MCP, ...):
                                      ``cancel`` + ``errorMessage``
updatedInput (allow)                  ``overrideInput`` in the tool's own shape (it
                                      replaces the whole input)
additionalContext                     ``contextModification`` (the model gets it as a
                                      ``<hook_context>`` user message)
continue: false                       ``cancel: true`` + ``errorMessage``: the whole task
                                      stops (``cline`` still exits 0)
systemMessage                         dropped (Cline shows the user nothing of a hook)
hookd cannot answer                   ``cancel: true`` + ``errorMessage`` on stdout, exit 0
                                      (exit 2, Claude's "no", lets Cline run the tool)
====================================  ==================================================

PostToolUse: ``decision: block`` and ``additionalContext`` become ``contextModification``
(the tool has run; the model reads the reason), ``continue: false`` a ``cancel``. The
detached events' answers are never read, so they get no output; a failure of hookd there
is exit 1 and a line on stderr, which Cline ignores. The arguments' shapes both ways, and the
payload the testing kit builds: :mod:`hookd.agents.cline_shapes`.
"""

from __future__ import annotations

import json
import shlex
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from hookd.agents.cline_shapes import HOOK_NAMES, claude_input, cline_input, unshape
from hookd.agents.dialect import (
    BLOCKING,
    Dialect,
    Encoded,
    Intent,
    Unsupported,
    decode,
    dumps,
)

if TYPE_CHECKING:
    from hookd.engine.call import HookCall
    from hookd.engine.verdict import Verdict

__all__ = [
    "APPROVAL_NEEDED",
    "DEFAULT_REASON",
    "DIALECT",
    "HOOK_NAMES",
    "PER_CALL_DENY",
    "deny_command",
]

EVENTS: Final = MappingProxyType(
    {
        "PreToolUse": "PreToolUse",
        "PostToolUse": "PostToolUse",
        "UserPromptSubmit": "UserPromptSubmit",
        "TaskStart": "SessionStart",
        "TaskResume": "SessionStart",
        "TaskComplete": "Stop",
        "TaskError": "StopFailure",
        "SessionShutdown": "SessionEnd",
    }
)
#: ``editor`` is Edit here; a call that creates a file becomes Write in :meth:`decode`.
TOOLS: Final = MappingProxyType(
    {
        "run_commands": "Bash",
        "editor": "Edit",
        "read_files": "Read",
        "search_codebase": "Grep",
        "fetch_web_content": "WebFetch",
    }
)
#: Cline's built-in tools that refuse a ``null`` input before doing anything (seen in 3.0.65):
#: a deny of one of them replaces its input with null, and the task goes on.
PER_CALL_DENY: Final = frozenset(
    {
        "run_commands",
        "editor",
        "read_files",
        "search_codebase",
        "fetch_web_content",
        "ask_question",
        "spawn_agent",
        "team_status",
    }
)
DEFAULT_REASON: Final = "denied by a hookd hook"
APPROVAL_NEEDED: Final = "this call needs the user's approval, which a Cline hook cannot ask for"
_HALTED: Final = "stopped by a hookd hook"
_SHELL: Final = "run_commands"


# -- decoding: Cline's payload into Claude's input ----------------------------------------


def _parameters(params: Any) -> dict[str, Any]:
    """``preToolUse.parameters`` decoded: Cline JSON-encodes every value that is not a string."""
    if not isinstance(params, dict):
        return {}
    out: dict[str, Any] = {}
    for key, value in params.items():
        if isinstance(value, str) and value[:1] in ("[", "{"):
            try:
                out[key] = json.loads(value)
                continue
            except ValueError:
                pass
        out[key] = value
    return out


def _creates(tool_input: Any) -> bool:
    """An ``editor`` call without ``old_text`` or ``insert_line``: Cline creates the file (and
    refuses when it exists)."""
    return isinstance(tool_input, dict) and "content" in tool_input


def _response(tool: str, output: Any) -> Any:
    """``tool_response`` for a tool's output: a shell call's results as Claude's Bash output."""
    if tool == "run_commands" and isinstance(output, list):
        text = "".join(str(r.get("result", "")) for r in output if isinstance(r, dict))
        return {"stdout": text, "stderr": "", "interrupted": False, "isImage": False,
                "results": output}  # fmt: skip
    return output


def _identity(data: dict[str, Any]) -> None:
    """session_id, cwd, and Cline's main-agent id out of Claude's ``agent_id``."""
    context = data.get("sessionContext")
    root = context.get("rootSessionId") if isinstance(context, dict) else None
    session = root or data.get("taskId")
    if isinstance(session, str):
        data["session_id"] = session
    roots = data.get("workspaceRoots")
    info = data.get("workspaceInfo")
    if isinstance(roots, list) and roots and isinstance(roots[0], str):
        data["cwd"] = roots[0]
    elif isinstance(info, dict) and isinstance(info.get("rootPath"), str):
        data["cwd"] = info["rootPath"]
    if data.get("parent_agent_id") is None and "agent_id" in data:
        data["cline_agent_id"] = data.pop("agent_id")


def _tool(data: dict[str, Any]) -> None:
    """tool_name, tool_input, tool_use_id (and PostToolUse's response) of a tool event."""
    call = data.get("tool_call") or data.get("tool_result")
    named = data.get("preToolUse") or data.get("postToolUse")
    call = call if isinstance(call, dict) else {}
    named = named if isinstance(named, dict) else {}
    tool = call.get("name") or named.get("toolName")
    if not isinstance(tool, str):
        return
    raw = call.get("input")
    raw = raw if isinstance(raw, dict) else _parameters(named.get("parameters"))
    data["tool_name"] = tool
    data["tool_input"] = claude_input(tool, raw)
    if isinstance(call.get("id"), str):
        data["tool_use_id"] = call["id"]
    result = data.get("tool_result")
    if isinstance(result, dict):
        data["tool_response"] = _response(tool, result.get("output"))
        if isinstance(result.get("durationMs"), int | float):
            data["duration_ms"] = result["durationMs"]


def _lifecycle(data: dict[str, Any]) -> None:
    """The prompt, the session start's source, the turn's text, the error, the end reason."""
    prompt = data.get("userPromptSubmit")
    if isinstance(prompt, dict) and isinstance(prompt.get("prompt"), str):
        data["prompt"] = prompt["prompt"]
    if "taskStart" in data:
        data["source"] = "startup"
    elif "taskResume" in data:
        data["source"] = "resume"
    turn = data.get("turn")
    if isinstance(turn, dict) and isinstance(turn.get("outputText"), str):
        data["last_assistant_message"] = turn["outputText"]
    error = data.get("error")
    if isinstance(error, dict):
        data["cline_error"] = error
        data["error"] = "unknown"
        if isinstance(error.get("message"), str):
            data["error_details"] = error["message"]
    if data.get("hookName") == "session_shutdown" and not isinstance(data.get("reason"), str):
        data["reason"] = "other"


def _reshape(data: dict[str, Any]) -> dict[str, Any]:
    """Claude's fields from Cline's nested payload; Cline's own fields stay."""
    _identity(data)
    _tool(data)
    _lifecycle(data)
    return data


# -- encoding: the verdict into what Cline reads ------------------------------------------


def deny_command(reason: str) -> str:
    """The one shell command that replaces a denied ``run_commands`` call: it prints the
    reason, quoted for the POSIX shell Cline runs commands in (``/bin/bash -c``), and fails.
    Nothing of the reason is ever run."""
    text = f"hookd denied this command: {reason}".replace("\x00", "")
    return f"printf '%s\\n' {shlex.quote(text)} >&2; exit 1"


def _own_tool(call: HookCall) -> str | None:
    """Cline's name of the call's tool."""
    if call.agent_tool:
        return call.agent_tool
    tool_call = call.input.get("tool_call")
    name = tool_call.get("name") if isinstance(tool_call, dict) else None
    return name if isinstance(name, str) else None


def _cancel(reason: str) -> dict[str, Any]:
    return {"cancel": True, "errorMessage": reason}


def _deny(tool: str | None, reason: str, context: str | None) -> dict[str, Any]:
    """One call denied, the task going on where Cline allows it; else the task stopped."""
    if tool == _SHELL:
        out: dict[str, Any] = {"overrideInput": {"commands": [deny_command(reason)]}}
        if context:
            out["contextModification"] = context
        return out
    if tool in PER_CALL_DENY:
        told = f"The {tool} call was denied by a hook and did not run: {reason}"
        return {"overrideInput": None,
                "contextModification": f"{told}\n{context}" if context else told}  # fmt: skip
    return _cancel(reason)


def _pre_tool_use(intent: Intent, call: HookCall) -> dict[str, Any]:
    if intent.halt:
        return _cancel(intent.stop_reason or _HALTED)
    reason: str | None = None
    denied = False
    if intent.block:
        denied, reason = True, intent.block_reason
    elif intent.decision == "deny":
        denied, reason = True, intent.reason
    elif intent.decision == "ask":
        denied = True
        reason = f"{APPROVAL_NEEDED}: {intent.reason}" if intent.reason else APPROVAL_NEEDED
    tool = _own_tool(call)
    if denied:
        return _deny(tool, reason or DEFAULT_REASON, intent.context)
    out: dict[str, Any] = {}
    if intent.updated_input is not None and intent.decision in (None, "allow"):
        before = call.input.get("tool_input")
        out["overrideInput"] = cline_input(tool or "", intent.updated_input, before)
    if intent.context:
        out["contextModification"] = intent.context
    return out


def _post_tool_use(intent: Intent, call: HookCall) -> dict[str, Any]:
    if intent.halt:
        return _cancel(intent.stop_reason or intent.block_reason or _HALTED)
    told = [t for t in ((intent.block_reason or DEFAULT_REASON) if intent.block else None,
                        intent.context) if t]  # fmt: skip
    return {"contextModification": "\n".join(told)} if told else {}


def encode(verdict: Verdict, call: HookCall) -> Encoded:
    """What a Cline hook file prints: only PreToolUse's and PostToolUse's answers are read."""
    problem = verdict.problem
    if problem is not None:
        reason = " ".join(problem.message.split())
        if verdict.event in BLOCKING:
            return Encoded(dumps(_cancel(f"hookd could not check this Cline call: {reason}")))
        return Encoded(exit_code=1, stderr=f"hookd: {reason}")
    intent = Intent.of(verdict)
    if verdict.event == "PreToolUse":
        return Encoded(dumps(_pre_tool_use(intent, call)))
    if verdict.event == "PostToolUse":
        return Encoded(dumps(_post_tool_use(intent, call)))
    return Encoded()


class ClineDialect(Dialect, frozen=True):
    """Cline's tables, with one decision the tables cannot make: an ``editor`` call that
    creates a file is Claude's Write (its other calls are Edit)."""

    def decode(self, agent_event: str, body: dict[str, Any]) -> HookCall | Unsupported:
        call = decode(self, agent_event, body)
        if isinstance(call, Unsupported):
            return call
        if call.agent_tool == "editor" and _creates(call.input.get("tool_input")):
            call.input["tool_name"] = "Write"
        return call


DIALECT: Final = ClineDialect("cline", EVENTS, TOOLS, encode, reshape=_reshape, unshape=unshape)
