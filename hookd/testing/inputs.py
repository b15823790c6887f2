"""Realistic hook inputs for every event, as Claude Code 2.1.330 sends them.

Each event's input starts from the fields the CLI sends (common fields in the
CLI's order: ``session_id``, ``transcript_path``, ``cwd``, ``prompt_id``,
``permission_mode``, ``hook_event_name``, then the event's own), with plausible
values. Any field can be overridden; :data:`OMIT` leaves one out. The result
is checked against the event's input schema, and a field the event does not
have is refused (with the closest name), so a test cannot fire an input the
CLI would never send. ``extra=`` adds fields newer than hookd's catalogue.
"""

from __future__ import annotations

import difflib
import itertools
import os
import uuid
from collections.abc import Callable, Mapping
from typing import Any, Final

import msgspec

from hookd.errors import HookdError
from hookd.events import EVENTS
from hookd.events.validation import check_input

__all__ = ["OMIT", "InputError", "Inputs", "tool_input_for"]

JsonObject = dict[str, Any]


class _Omit:
    def __repr__(self) -> str:
        return "OMIT"


#: Pass as a field's value to leave the field out of the input.
OMIT: Final = _Omit()


class InputError(HookdError, ValueError):
    """An input the CLI would never send: unknown event, unknown field, wrong type."""


#: Events whose input has no ``prompt_id`` / no ``permission_mode`` (as observed).
_NO_PROMPT_ID: Final = frozenset({"SessionStart", "Setup"})
_NO_PERMISSION_MODE: Final = frozenset({"SessionEnd", "SessionStart", "Setup"})
_TOOL_EVENTS: Final = frozenset(
    {"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied"}
)
_TOOL_USE_ID_EVENTS: Final = _TOOL_EVENTS - {"PermissionRequest"}


def tool_input_for(tool_name: str, cwd: str) -> JsonObject:
    """A plausible ``tool_input`` for a built-in tool (``{}`` for others)."""
    path = os.path.join(cwd, "notes.md")
    inputs: dict[str, JsonObject] = {
        "Bash": {"command": "ls", "description": "List files"},
        "Write": {"file_path": path, "content": "# Notes\n"},
        "Edit": {"file_path": path, "old_string": "Notes", "new_string": "To do"},
        "MultiEdit": {"file_path": path, "edits": [{"old_string": "a", "new_string": "b"}]},
        "Read": {"file_path": path},
        "Glob": {"pattern": "**/*.py"},
        "Grep": {"pattern": "TODO", "path": cwd},
        "WebFetch": {"url": "https://example.com/", "prompt": "Summarise the page"},
        "WebSearch": {"query": "trio cancel scopes"},
        "Task": {
            "description": "Find tests",
            "prompt": "List the test files",
            "subagent_type": "general-purpose",
        },
        "TodoWrite": {
            "todos": [
                {"content": "write tests", "status": "pending", "activeForm": "Writing tests"}
            ]
        },
    }
    return inputs.get(tool_name, {})


def _tool_response(tool_name: str) -> Any:
    if tool_name == "Bash":
        return {
            "stdout": "README.md\n",
            "stderr": "",
            "interrupted": False,
            "isImage": False,
            "noOutputExpected": False,
        }
    return {"success": True}


class Inputs:
    """Builds inputs for one test session: its ids, its working directory."""

    def __init__(self, session_id: str | None = None, cwd: str | None = None) -> None:
        self.session_id = session_id or str(uuid.uuid4())
        self.cwd = cwd
        self._ids = itertools.count(1)

    def next_tool_use_id(self) -> str:
        return f"toolu_test_{next(self._ids):04d}"

    def common(self, event: str, cwd: str, session_id: str) -> JsonObject:
        project = cwd.replace(os.sep, "-").replace(".", "-")
        out: JsonObject = {
            "session_id": session_id,
            "transcript_path": os.path.join(
                os.path.expanduser("~"), ".claude", "projects", project, f"{session_id}.jsonl"
            ),
            "cwd": cwd,
        }
        if event not in _NO_PROMPT_ID:
            out["prompt_id"] = str(uuid.uuid4())
        if event not in _NO_PERMISSION_MODE:
            out["permission_mode"] = "default"
        out["hook_event_name"] = event
        return out

    def build(
        self, event: str, fields: Mapping[str, Any], extra: Mapping[str, Any] | None = None
    ) -> JsonObject:
        """The input of ``event`` with ``fields`` overridden; checked like the CLI's own."""
        spec = EVENTS.get(event)
        if spec is None:
            close = difflib.get_close_matches(event, list(EVENTS), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise InputError(f"{event!r} is not a hook event{hint}")
        known = {f.encode_name for f in msgspec.structs.fields(spec.input_type)}
        for name in fields:
            if name not in known:
                close = difflib.get_close_matches(name, sorted(known), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise InputError(
                    f"{event} input has no field {name!r}{hint}; pass extra={{...}} for "
                    "fields newer than hookd's catalogue"
                )
        cwd = str(fields.get("cwd") or self.cwd or os.getcwd())
        session_id = str(fields.get("session_id") or self.session_id)
        out = self.common(event, cwd, session_id)
        tool_name = str(fields.get("tool_name", "Bash"))
        out.update(self._specific(event, cwd, tool_name, fields))
        out.update(fields)
        out.update(extra or {})
        out = {k: v for k, v in out.items() if v is not OMIT}
        problem = check_input(event, out)
        if problem is not None:
            raise InputError(problem)
        return out

    def _specific(
        self, event: str, cwd: str, tool_name: str, fields: Mapping[str, Any]
    ) -> JsonObject:
        out: JsonObject = {}
        if event in _TOOL_EVENTS:
            tool_input = fields.get("tool_input")
            if tool_input is None or tool_input is OMIT:
                tool_input = tool_input_for(tool_name, cwd)
            out = {"tool_name": tool_name, "tool_input": tool_input}
            if event in _TOOL_USE_ID_EVENTS:
                out["tool_use_id"] = self.next_tool_use_id()
        return {**out, **_EXTRA[event](self, cwd, tool_name)}


def _ids(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:12]}"


_Maker = Callable[[Inputs, str, str], JsonObject]

#: Each event's own fields, after the common ones (and tool_name/tool_input/tool_use_id).
_EXTRA: Final[dict[str, _Maker]] = {
    "PreToolUse": lambda s, cwd, tool: {},
    "PostToolUse": lambda s, cwd, tool: {"tool_response": _tool_response(tool), "duration_ms": 41},
    "PostToolUseFailure": lambda s, cwd, tool: {
        "error": "Exit code 1\nls: cannot access 'missing': No such file or directory",
        "is_interrupt": False,
        "duration_ms": 38,
    },
    "PostToolBatch": lambda s, cwd, tool: {
        "tool_calls": [
            {
                "tool_name": "Bash",
                "tool_input": tool_input_for("Bash", cwd),
                "tool_use_id": s.next_tool_use_id(),
                "tool_response": _tool_response("Bash"),
            },
            {
                "tool_name": "Read",
                "tool_input": tool_input_for("Read", cwd),
                "tool_use_id": s.next_tool_use_id(),
                "tool_response": _tool_response("Read"),
            },
        ]
    },
    "Notification": lambda s, cwd, tool: {
        "message": "Claude needs your permission to use Bash",
        "notification_type": "permission_prompt",
    },
    "UserPromptSubmit": lambda s, cwd, tool: {"prompt": "Fix the failing test"},
    "UserPromptExpansion": lambda s, cwd, tool: {
        "expansion_type": "slash_command",
        "command_name": "review",
        "command_args": "",
        "command_source": "project",
        "prompt": "/review",
    },
    "SessionStart": lambda s, cwd, tool: {"source": "startup", "model": "claude-sonnet-4-5"},
    "SessionEnd": lambda s, cwd, tool: {"reason": "other"},
    "Setup": lambda s, cwd, tool: {"trigger": "init"},
    "Stop": lambda s, cwd, tool: {
        "stop_hook_active": False,
        "last_assistant_message": "Done: the test passes now.",
        "background_tasks": [],
        "session_crons": [],
    },
    "StopFailure": lambda s, cwd, tool: {
        "error": "rate_limit",
        "error_details": "429 rate_limit_error",
        "last_assistant_message": "",
    },
    "SubagentStart": lambda s, cwd, tool: {
        "agent_id": _ids("agent_"),
        "agent_type": "general-purpose",
    },
    "SubagentStop": lambda s, cwd, tool: {
        "stop_hook_active": False,
        "agent_id": (agent := _ids("agent_")),
        "agent_type": "general-purpose",
        "agent_transcript_path": os.path.join(
            os.path.expanduser("~"), ".claude", "projects", "subagents", f"{agent}.jsonl"
        ),
        "last_assistant_message": "Found 3 test files.",
        "background_tasks": [],
        "session_crons": [],
    },
    "PreCompact": lambda s, cwd, tool: {"trigger": "manual", "custom_instructions": None},
    "PostCompact": lambda s, cwd, tool: {
        "trigger": "manual",
        "compact_summary": "The user asked to fix a failing test; it passes now.",
    },
    "PreModelSwitch": lambda s, cwd, tool: _model_switch(),
    "PostModelSwitch": lambda s, cwd, tool: _model_switch(),
    "PermissionRequest": lambda s, cwd, tool: {
        "permission_suggestions": [
            {
                "type": "addRules",
                "rules": [{"toolName": tool}],
                "behavior": "allow",
                "destination": "localSettings",
            }
        ]
    },
    "PermissionDenied": lambda s, cwd, tool: {"reason": "Permission to use this tool was denied"},
    "TeammateIdle": lambda s, cwd, tool: {"teammate_name": "reviewer", "team_name": "core"},
    "TaskCreated": lambda s, cwd, tool: _task(),
    "TaskCompleted": lambda s, cwd, tool: _task(),
    "Elicitation": lambda s, cwd, tool: {
        "mcp_server_name": "github",
        "message": "Which repository?",
        "mode": "form",
        "elicitation_id": _ids("elicit_"),
        "requested_schema": {
            "type": "object",
            "properties": {"repo": {"type": "string"}},
            "required": ["repo"],
        },
    },
    "ElicitationResult": lambda s, cwd, tool: {
        "mcp_server_name": "github",
        "elicitation_id": _ids("elicit_"),
        "mode": "form",
        "action": "accept",
        "content": {"repo": "octo/hello"},
    },
    "ConfigChange": lambda s, cwd, tool: {
        "source": "project_settings",
        "file_path": os.path.join(cwd, ".claude", "settings.json"),
    },
    "WorktreeCreate": lambda s, cwd, tool: {"name": "feature-x"},
    "WorktreeRemove": lambda s, cwd, tool: {
        "worktree_path": os.path.join(cwd, ".claude", "worktrees", "feature-x")
    },
    "InstructionsLoaded": lambda s, cwd, tool: {
        "file_path": os.path.join(cwd, "CLAUDE.md"),
        "memory_type": "Project",
        "load_reason": "session_start",
    },
    "CwdChanged": lambda s, cwd, tool: {"old_cwd": cwd, "new_cwd": os.path.join(cwd, "src")},
    "FileChanged": lambda s, cwd, tool: {
        "file_path": os.path.join(cwd, "pyproject.toml"),
        "event": "change",
    },
    "DirectoryAdded": lambda s, cwd, tool: {
        "directory": os.path.join(os.path.dirname(cwd), "shared"),
        "source": "slash_command",
    },
    "MessageDisplay": lambda s, cwd, tool: {
        "turn_id": _ids("turn_"),
        "message_id": _ids("msg_"),
        "index": 0,
        "final": True,
        "delta": "Done: the test passes now.",
    },
}


def _model_switch() -> JsonObject:
    return {
        "from_model": "claude-sonnet-4-5",
        "to_model": "claude-opus-4-1",
        "requested_model": "opus",
        "source": "command",
        "context_tokens": 18250,
        "prompt_cache_warm": True,
        "cache_ttl": "5m",
        "estimated_cache_write_usd": 0.27,
        "pricing": "catalog",
    }


def _task() -> JsonObject:
    return {
        "task_id": _ids("task_"),
        "task_subject": "Write the release notes",
        "task_description": "Summarise the changes since the last tag",
    }
