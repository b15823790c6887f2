"""Cline's tool arguments in Claude's names and back, and the payload Cline sends for a
Claude-shaped input (the testing kit's direction); the dialect is :mod:`hookd.agents.cline`.

Claude's input keeps Cline's own lists beside Claude's fields (``commands`` beside
``command``, ``files`` beside ``file_path``, ...): going back, a list whose Claude field was
not changed is sent as it was, else the Claude field is.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any, Final

import msgspec

from hookd.events import EVENTS as EVENTS_BY_NAME

__all__ = ["HOOK_NAMES", "claude_input", "cline_input", "strings", "unshape"]

#: Cline's hook file name -> the ``hookName`` in its payload.
HOOK_NAMES: Final = MappingProxyType(
    {
        "PreToolUse": "tool_call",
        "PostToolUse": "tool_result",
        "UserPromptSubmit": "prompt_submit",
        "TaskStart": "agent_start",
        "TaskResume": "agent_resume",
        "TaskComplete": "agent_end",
        "TaskError": "agent_error",
        "TaskCancel": "agent_abort",
        "SessionShutdown": "session_shutdown",
    }
)


def strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def claude_input(tool: str, raw: dict[str, Any]) -> dict[str, Any]:
    """Claude's input for a Cline tool's arguments (Cline's own keys kept where they add)."""
    if tool == "run_commands":
        commands = strings(raw.get("commands"))
        return {"command": "\n".join(commands), "commands": commands}
    if tool == "editor":
        path, new = raw.get("path"), raw.get("new_text")
        old, line = raw.get("old_text"), raw.get("insert_line")
        if isinstance(old, str) and old:
            return {"file_path": path, "old_string": old, "new_string": new}
        if line is not None:
            return {"file_path": path, "old_string": "", "new_string": new, "insert_line": line}
        return {"file_path": path, "content": new}
    if tool == "read_files":
        files = [f for f in raw.get("files") or [] if isinstance(f, dict)]
        first = files[0] if files else {}
        out: dict[str, Any] = {"file_path": first.get("path")}
        start, end = first.get("start_line"), first.get("end_line")
        if isinstance(start, int):
            out["offset"] = start
        if isinstance(end, int):
            out["limit"] = end - (start if isinstance(start, int) else 1) + 1
        out["file_paths"] = [f.get("path") for f in files]
        out["files"] = files
        return out
    if tool == "search_codebase":
        queries = strings(raw.get("queries"))
        return {"pattern": "|".join(queries), "queries": queries}
    if tool == "fetch_web_content":
        requests = [r for r in raw.get("requests") or [] if isinstance(r, dict)]
        first = requests[0] if requests else {}
        return {"url": first.get("url"), "prompt": first.get("prompt"), "requests": requests}
    return dict(raw)


# -- the kit's direction: Claude's input into Cline's payload -----------------------------


def _kept(claude: dict[str, Any], before: dict[str, Any], own: str, *fields: str) -> bool:
    """Claude's ``fields`` are as decoded, so Cline's own list ``own`` is still the truth."""
    return isinstance(claude.get(own), list) and all(
        claude.get(field) == before.get(field) for field in fields
    )


def _shell_args(claude: dict[str, Any], before: dict[str, Any]) -> dict[str, Any]:
    if _kept(claude, before, "commands", "command") or not isinstance(claude.get("command"), str):
        return {"commands": strings(claude.get("commands"))}
    return {"commands": [claude["command"]]}


def _editor_args(claude: dict[str, Any], before: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"path": claude.get("file_path")}
    if "content" in claude:  # Write
        out["new_text"] = claude.get("content")
        return out
    old = claude.get("old_string")
    if isinstance(old, str) and old:
        out["old_text"] = old
    out["new_text"] = claude.get("new_string")
    if claude.get("insert_line") is not None:
        out["insert_line"] = claude["insert_line"]
    return out


def _read_args(claude: dict[str, Any], before: dict[str, Any]) -> dict[str, Any]:
    if _kept(claude, before, "files", "file_path", "offset", "limit"):
        return {"files": claude["files"]}
    file: dict[str, Any] = {"path": claude.get("file_path")}
    offset, limit = claude.get("offset"), claude.get("limit")
    if isinstance(offset, int):
        file["start_line"] = offset
    if isinstance(limit, int):
        file["end_line"] = (offset if isinstance(offset, int) else 1) + limit - 1
    return {"files": [file]}


def _search_args(claude: dict[str, Any], before: dict[str, Any]) -> dict[str, Any]:
    if _kept(claude, before, "queries", "pattern"):
        return {"queries": claude["queries"]}
    return {"queries": strings(claude.get("pattern"))}


def _fetch_args(claude: dict[str, Any], before: dict[str, Any]) -> dict[str, Any]:
    if _kept(claude, before, "requests", "url", "prompt"):
        return {"requests": claude["requests"]}
    return {"requests": [{"url": claude.get("url"), "prompt": claude.get("prompt")}]}


_ARGS: Final = {
    "run_commands": _shell_args,
    "editor": _editor_args,
    "read_files": _read_args,
    "search_codebase": _search_args,
    "fetch_web_content": _fetch_args,
}


def cline_input(tool: str, claude: dict[str, Any], before: Any = None) -> Any:
    """Cline's arguments for ``tool`` from Claude-shaped ``claude``; ``before`` is the input as
    decoded, so a list Cline sent (``commands``, ``files``...) is kept when its Claude field
    was not changed. Another tool's input is Cline's own already."""
    shape = _ARGS.get(tool)
    if shape is None:
        return dict(claude)
    return shape(claude, before if isinstance(before, dict) else {})


def _stringified(arguments: Any) -> dict[str, str]:
    """``preToolUse.parameters``: each value a string, the others JSON-encoded."""
    if not isinstance(arguments, dict):
        return {}
    return {k: v if isinstance(v, str) else json.dumps(v, separators=(",", ":"))
            for k, v in arguments.items()}  # fmt: skip


def _claude_fields() -> frozenset[str]:
    """Every top-level field of Claude's inputs: the kit's payload leaves them out (a field of
    no Claude input, such as a test's ``extra``, is passed on as it is)."""
    return frozenset(
        field.encode_name
        for spec in EVENTS_BY_NAME.values()
        for field in msgspec.structs.fields(spec.input_type)
    )


_CLAUDE_ONLY: Final = _claude_fields()


def _tool_payload(event: str, data: dict[str, Any]) -> dict[str, Any]:
    """``tool_call`` + ``preToolUse``, or ``tool_result`` + ``postToolUse``, for the kit."""
    tool = data.get("tool_name")
    if not isinstance(tool, str):
        return {}
    tool = "editor" if tool == "Write" else tool
    tool_input = data.get("tool_input")
    arguments = cline_input(tool, tool_input if isinstance(tool_input, dict) else {})
    call = {"id": data.get("tool_use_id") or "call_1", "name": tool, "input": arguments}
    if event != "PostToolUse":
        named = {"toolName": tool, "parameters": _stringified(arguments)}
        return {"iteration": 1, "tool_call": call, "preToolUse": named}
    response = data.get("tool_response")
    output = response.get("results", response) if isinstance(response, dict) else response
    return {
        "iteration": 1,
        "tool_result": {**call, "output": output, "durationMs": 5},
        "postToolUse": {
            "toolName": tool,
            "parameters": _stringified(arguments),
            "result": output if isinstance(output, str) else json.dumps(output),
            "success": True,
            "executionTimeMs": 5,
        },
    }


def _lifecycle_payload(hook: str, data: dict[str, Any]) -> dict[str, Any]:
    """The part of a lifecycle event's payload that names it, for the kit."""
    if hook == "prompt_submit":
        return {"userPromptSubmit": {"prompt": data.get("prompt", ""), "attachments": []}}
    if hook == "agent_start":
        return {"taskStart": {"taskMetadata": {}}}
    if hook == "agent_resume":
        return {"taskResume": {"taskMetadata": {}, "previousState": {}}}
    if hook == "agent_end":
        turn = {"outputText": data.get("last_assistant_message") or "", "status": "completed"}
        return {"iteration": 1, "turn": turn, "taskComplete": {"taskMetadata": {}}}
    if hook == "agent_error":
        error = {"name": "Error", "message": data.get("error_details") or "", "stack": ""}
        return {"iteration": 1, "error": error}
    if hook == "session_shutdown":
        return {"reason": data.get("reason") or "other"}
    return {}


def unshape(data: dict[str, Any]) -> dict[str, Any]:
    """The payload Cline sends for a Claude-shaped input (the kit's direction)."""
    event = str(data.get("hook_event_name", ""))
    cwd = data.get("cwd")
    cwd = cwd if isinstance(cwd, str) else ""
    session = str(data.get("session_id") or "session")
    hook = HOOK_NAMES.get(event, event)
    out: dict[str, Any] = {
        "clineVersion": "",
        "timestamp": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "taskId": f"conv_{session}",
        "sessionContext": {"rootSessionId": session},
        "workspaceRoots": [cwd] if cwd else [],
        "workspaceInfo": {"rootPath": cwd, "hint": cwd.rsplit("/", 1)[-1]},
        "userId": "unknown",
        "agent_id": data.get("agent_id") or "agent_1",
        "parent_agent_id": data.get("parent_agent_id"),
        "hookName": hook,
        **_tool_payload(event, data),
        **_lifecycle_payload(hook, data),
    }
    extra = {k: v for k, v in data.items() if k not in _CLAUDE_ONLY and k not in out}
    return {**extra, **out}
