"""The event-specific values of the kit's inputs: plausible, and valid for each event's schema."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from typing import Any, Final

__all__ = ["EXTRA", "tool_input_for"]

JsonObject = dict[str, Any]
NextId = Callable[[], str]


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


def _ids(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:12]}"


_Maker = Callable[[NextId, str, str], JsonObject]

#: Each event's own fields, after the common ones (and tool_name/tool_input/tool_use_id).
EXTRA: Final[dict[str, _Maker]] = {
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
                "tool_use_id": s(),
                "tool_response": _tool_response("Bash"),
            },
            {
                "tool_name": "Read",
                "tool_input": tool_input_for("Read", cwd),
                "tool_use_id": s(),
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
