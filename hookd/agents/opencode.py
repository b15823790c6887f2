"""OpenCode (``opencode-ai``) and Kilo CLI (``@kilocode/cli``): the body hookd's TypeScript plugin
posts, and the answer it reads.

Neither CLI runs command hooks: their hooks are functions of an in-process plugin. hookd's
plugin, ``hookd/agents/plugins/hookd-opencode.ts`` (one file for both CLIs; see its header),
posts each event it forwards to ``POST /agent/opencode/EVENT`` (or ``/agent/kilo/EVENT``) with
EVENT the CLI's own hook or bus event name, and a Claude-shaped body that keeps OpenCode's tool
and argument names: ``{hook_event_name, session_id, cwd, agent, tool_name: "bash", tool_input:
{...}, tool_use_id}`` (``tool_response``, ``prompt``, ``source``, ``stop_hook_active`` per
event). Kilo CLI's body is the same (the plugin names it in ``agent``); :data:`KILO` is this
dialect under the agent name ``kilo``.

==========================  ==================================================
OpenCode / Kilo CLI         Claude Code (what the hook sees)
==========================  ==================================================
tool.execute.before         PreToolUse
tool.execute.after          PostToolUse (``tool_response``: the output text)
chat.message                UserPromptSubmit
session.created             SessionStart (``source: "startup"``)
session.idle                Stop
session.deleted             SessionEnd (not sent by ``run``)
bash, write, edit, read     Bash, Write, Edit, Read
glob, grep, task, webfetch  Glob, Grep, Task, WebFetch
filePath, oldString,        file_path, old_string, new_string, replace_all
newString, replaceAll       (and grep's include as glob); back again in an
                            ``updatedInput``
==========================  ==================================================

The answer is for the plugin, not for a person: one small JSON object (nothing for "go on"):

==============================  ============================================================
Claude answer (merged)          what the plugin receives (and does)
==============================  ============================================================
PreToolUse deny + reason        ``{"decision": "deny", "reason": R}`` (throws R: the tool
                                does not run and the model sees R; hookd supplies a reason)
PreToolUse ask                  a deny whose reason says the call needs the user's approval
                                (a plugin cannot ask)
PreToolUse continue: false,     a deny with the stop reason / the block reason
decision: block
PreToolUse allow + updatedInput ``{"decision": "allow", "updatedInput": A}`` in OpenCode's
                                argument names (the call's args become A)
PreToolUse allow / defer        nothing
additionalContext               ``{"context": C}``: added to the tool's output (PreToolUse,
                                PostToolUse), as a text part of the prompt (UserPromptSubmit),
                                or of the session's first prompt (SessionStart)
PostToolUse decision: block     ``{"decision": "block", "reason": R}``: R added to the output
UserPromptSubmit block,         ``{"decision": "block", "reason": R}`` (throws: the prompt is
continue: false                 not sent; ``opencode run`` exits 1)
Stop decision: block            ``{"decision": "block", "reason": R}`` (the plugin cannot
                                make the session go on yet: read, not obeyed)
systemMessage                   dropped (the plugin has nowhere to show it in ``run``)
hookd cannot answer             blocking event: exit 2 + one line on stderr (the plugin
                                throws it); else exit 1 (logged, goes on)
==============================  ============================================================
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from hookd.agents.dialect import Dialect, Encoded, Intent, dumps, failed_closed
from hookd.agents.plugin_settings import Routes, routes_value, with_settings

if TYPE_CHECKING:
    from hookd.engine.call import HookCall
    from hookd.engine.verdict import Verdict

__all__ = [
    "APPROVAL_NEEDED",
    "ARGS",
    "DEFAULT_REASON",
    "DIALECT",
    "KILO",
    "PLUGIN",
    "SENT",
    "plugin_source",
]

#: The plugin both CLIs load (its settings line filled by :func:`plugin_source`).
PLUGIN: Final = Path(__file__).with_name("plugins") / "hookd-opencode.ts"

EVENTS: Final = MappingProxyType(
    {
        "tool.execute.before": "PreToolUse",
        "tool.execute.after": "PostToolUse",
        "chat.message": "UserPromptSubmit",
        "session.created": "SessionStart",
        "session.idle": "Stop",
        "session.deleted": "SessionEnd",
    }
)
TOOLS: Final = MappingProxyType(
    {
        "bash": "Bash",
        "write": "Write",
        "edit": "Edit",
        "read": "Read",
        "glob": "Glob",
        "grep": "Grep",
        "task": "Task",
        "webfetch": "WebFetch",
    }
)
#: OpenCode's argument names -> Claude's, by OpenCode tool (observed in 1.18.33's tool schemas;
#: Kilo CLI 7.7.9's are the same). Arguments not named here keep their names.
ARGS: Final = MappingProxyType(
    {
        "write": MappingProxyType({"filePath": "file_path"}),
        "read": MappingProxyType({"filePath": "file_path"}),
        "edit": MappingProxyType(
            {
                "filePath": "file_path",
                "oldString": "old_string",
                "newString": "new_string",
                "replaceAll": "replace_all",
            }
        ),
        "grep": MappingProxyType({"include": "glob"}),
    }
)
#: The top-level fields the plugin sends (the kit's payloads carry only these).
SENT: Final = frozenset(
    {"hook_event_name", "session_id", "cwd", "agent", "tool_name", "tool_input", "tool_use_id",
     "tool_response", "prompt", "source", "stop_hook_active", "reason"}
)  # fmt: skip

DEFAULT_REASON: Final = "denied by a hookd hook"
APPROVAL_NEEDED: Final = (
    "this call needs the user's approval, which an OpenCode plugin cannot ask for"
)


def _renamed(args: Any, names: MappingProxyType[str, str] | dict[str, str]) -> Any:
    if not isinstance(args, dict):
        return args
    return {names.get(key, key): value for key, value in args.items()}


def _reshape(data: dict[str, Any]) -> dict[str, Any]:
    """OpenCode's argument names as Claude's, for the tools that differ."""
    names = ARGS.get(str(data.get("tool_name")))
    if names is not None and "tool_input" in data:
        data["tool_input"] = _renamed(data["tool_input"], names)
    return data


def _unshape(data: dict[str, Any]) -> dict[str, Any]:
    """Claude's input as the plugin sends it (the kit's direction): OpenCode's argument names,
    a tool's response as the text of its output."""
    tool = data.get("tool_name")
    names = ARGS.get(str(tool))
    if names is not None and "tool_input" in data:
        data["tool_input"] = _renamed(data["tool_input"], {v: k for k, v in names.items()})
    response = data.get("tool_response")
    if isinstance(response, dict) and "stdout" in response:
        data["tool_response"] = f"{response.get('stdout') or ''}{response.get('stderr') or ''}"
    elif response is not None and not isinstance(response, str):
        data["tool_response"] = json.dumps(response)
    return data


def own_args(tool: str | None, args: dict[str, Any]) -> dict[str, Any]:
    """Claude-named arguments (an ``updatedInput``) in OpenCode's names for ``tool``."""
    names = ARGS.get(tool or "")
    if names is None:
        return dict(args)
    back = {ours: theirs for theirs, ours in names.items()}
    return {back.get(key, key): value for key, value in args.items()}


def _pre_tool_use(intent: Intent, call: HookCall) -> dict[str, Any]:
    decision, reason = intent.tool_decision(APPROVAL_NEEDED)
    out: dict[str, Any] = {}
    if decision == "deny":
        return {"decision": "deny", "reason": reason or DEFAULT_REASON}
    if decision == "allow" and intent.updated_input is not None:
        out = {"decision": "allow", "updatedInput": own_args(call.agent_tool, intent.updated_input)}
    if intent.context:
        out["context"] = intent.context
    return out


def _blocks(intent: Intent) -> str | None:
    """The reason when a non-tool event's answer blocks (``decision: block`` or a halt)."""
    if intent.block:
        return intent.block_reason or DEFAULT_REASON
    if intent.halt:
        return intent.stop_reason or DEFAULT_REASON
    return None


def _other(intent: Intent, call: HookCall) -> dict[str, Any]:
    out: dict[str, Any] = {}
    reason = _blocks(intent)
    if reason is not None and intent.event in ("UserPromptSubmit", "PostToolUse", "Stop"):
        out = {"decision": "block", "reason": reason}
    if intent.context and intent.event in ("PostToolUse", "UserPromptSubmit", "SessionStart"):
        out["context"] = intent.context
    return out


def encode(verdict: Verdict, call: HookCall) -> Encoded:
    """The plugin's JSON for the verdict (nothing when it asks nothing of the plugin)."""
    failed = failed_closed(verdict, "OpenCode" if call.agent != "kilo" else "Kilo CLI")
    if failed is not None:
        return failed
    intent = Intent.of(verdict)
    shape = _pre_tool_use if verdict.event == "PreToolUse" else _other
    return Encoded(dumps(shape(intent, call)))


def _unshape_for(agent: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def unshape(data: dict[str, Any]) -> dict[str, Any]:
        data = _unshape(data)
        data.setdefault("agent", agent)
        return data

    return unshape


DIALECT: Final = Dialect(
    "opencode", EVENTS, TOOLS, encode, sent=SENT, reshape=_reshape, unshape=_unshape_for("opencode")
)
#: Kilo CLI: the same plugin, body and answer, under its own name on the route.
KILO: Final = Dialect(
    "kilo", EVENTS, TOOLS, encode, sent=SENT, reshape=_reshape, unshape=_unshape_for("kilo")
)


def plugin_source(
    agent: str,
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
    """``hookd-opencode.ts`` with its settings line naming one daemon, for ``agent``
    (``opencode`` or ``kilo``; ``""``: the plugin's folder tells): ``routes`` maps each event
    to forward to its deadline in seconds and whether it fails closed (default:
    ``tool.execute.before``, 55 s, closed); ``key`` marks the module's install. No token: the
    plugin reads ``token_file`` at each call."""
    routes = routes or {"tool.execute.before": (55, True)}
    settings = {
        "agent": agent, "key": key, "port": port, "tokenFile": token_file,
        "readyFile": ready_file, "hookd": hookd, "module": module, "failOpen": fail_open,
        "routes": routes_value(routes, EVENTS, agent or "opencode"),
    }  # fmt: skip
    text = source if source is not None else PLUGIN.read_text(encoding="utf-8")
    return with_settings(text, settings, PLUGIN.name)
