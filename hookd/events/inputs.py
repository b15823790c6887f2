"""What the CLI sends each hook event: one input Struct per event.

Required fields are required, optional ones default to ``None``. Unknown fields
are accepted, and so are unknown values of enum-like fields: the CLI adds both
in every release. A callback may ask for one instead of the dict, for attribute
access. :mod:`hookd.events.catalogue` ties each to its event.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeAlias

import msgspec
from msgspec import Meta

__all__ = [
    "BackgroundTask",
    "Effort",
    "HookInput",
    "JsonObject",
    "McpServer",
    "NotificationInput",
    "Number",
    "PermissionDeniedInput",
    "PermissionRequestInput",
    "PostCompactInput",
    "PostToolBatchInput",
    "PostToolUseFailureInput",
    "PostToolUseInput",
    "PreCompactInput",
    "PreToolUseInput",
    "SessionCron",
    "SessionEndInput",
    "SessionStartInput",
    "SetupInput",
    "StopFailureInput",
    "StopInput",
    "SubagentStartInput",
    "SubagentStopInput",
    "ToolCall",
    "UserPromptExpansionInput",
    "UserPromptSubmitInput",
]

Number: TypeAlias = int | float
JsonObject: TypeAlias = dict[str, Any]


def _known(*values: str) -> Meta:
    """Documents the known values of a string field without enforcing them."""
    return Meta(description="Known values: " + ", ".join(values) + " (an open set).")


# ----------------------------------------------------------------------------- inputs


class McpServer(msgspec.Struct, kw_only=True, frozen=True, omit_defaults=True):
    """The MCP server serving an MCP tool (tool names starting with mcp__)."""

    name: str
    source: str


class Effort(msgspec.Struct, kw_only=True, frozen=True, omit_defaults=True):
    """The reasoning effort of the current turn."""

    level: str


class HookInput(msgspec.Struct, kw_only=True, frozen=True, omit_defaults=True):
    """The fields every hook input carries."""

    session_id: str
    transcript_path: str
    cwd: str
    hook_event_name: str
    permission_mode: str | None = None
    prompt_id: str | None = None
    agent_id: str | None = None
    agent_type: str | None = None
    effort: Effort | None = None


class _ToolInput(HookInput, kw_only=True, frozen=True, omit_defaults=True):
    tool_name: str
    tool_input: Any
    mcp_server: McpServer | None = None


class PreToolUseInput(_ToolInput, kw_only=True, frozen=True, omit_defaults=True):
    """Before a tool runs."""

    hook_event_name: Literal["PreToolUse"]
    tool_use_id: str


class PostToolUseInput(_ToolInput, kw_only=True, frozen=True, omit_defaults=True):
    """After a tool succeeded."""

    hook_event_name: Literal["PostToolUse"]
    tool_use_id: str
    tool_response: Any
    duration_ms: Number | None = None


class PostToolUseFailureInput(_ToolInput, kw_only=True, frozen=True, omit_defaults=True):
    """After a tool failed."""

    hook_event_name: Literal["PostToolUseFailure"]
    tool_use_id: str
    error: str
    is_interrupt: bool | None = None
    duration_ms: Number | None = None


class PermissionRequestInput(_ToolInput, kw_only=True, frozen=True, omit_defaults=True):
    """When the CLI would ask the user for permission to run a tool."""

    hook_event_name: Literal["PermissionRequest"]
    permission_suggestions: list[JsonObject] | None = None


class PermissionDeniedInput(_ToolInput, kw_only=True, frozen=True, omit_defaults=True):
    """After a tool call was denied."""

    hook_event_name: Literal["PermissionDenied"]
    tool_use_id: str
    reason: str


class ToolCall(msgspec.Struct, kw_only=True, frozen=True, omit_defaults=True):
    """One tool call of a batch."""

    tool_name: str
    tool_input: Any
    tool_use_id: str
    tool_response: Any = None


class PostToolBatchInput(HookInput, kw_only=True, frozen=True, omit_defaults=True):
    """After a batch of parallel tool calls finished."""

    hook_event_name: Literal["PostToolBatch"]
    tool_calls: list[ToolCall]


class NotificationInput(HookInput, kw_only=True, frozen=True, omit_defaults=True):
    """A notification the CLI shows."""

    hook_event_name: Literal["Notification"]
    message: str
    notification_type: str
    title: str | None = None


class UserPromptSubmitInput(HookInput, kw_only=True, frozen=True, omit_defaults=True):
    """A prompt, before the model sees it."""

    hook_event_name: Literal["UserPromptSubmit"]
    prompt: str
    source: (
        Annotated[str, _known("user", "sdk", "system", "loop_wakeup", "schedule_wakeup")] | None
    ) = None
    session_title: str | None = None


class UserPromptExpansionInput(HookInput, kw_only=True, frozen=True, omit_defaults=True):
    """A slash command or MCP prompt, before it is expanded."""

    hook_event_name: Literal["UserPromptExpansion"]
    expansion_type: Annotated[str, _known("slash_command", "mcp_prompt")]
    command_name: str
    command_args: str
    prompt: str
    command_source: str | None = None


class SessionStartInput(HookInput, kw_only=True, frozen=True, omit_defaults=True):
    """A session starts, resumes, is cleared, compacted or forked."""

    hook_event_name: Literal["SessionStart"]
    source: Annotated[str, _known("startup", "resume", "clear", "compact", "fork")]
    model: str | None = None
    session_title: str | None = None
    seconds_since_last_response: Number | None = None
    context_tokens: Number | None = None
    prompt_cache_likely_expired: bool | None = None
    estimated_cache_write_usd: Number | None = None


class SessionEndInput(HookInput, kw_only=True, frozen=True, omit_defaults=True):
    """A session ends."""

    hook_event_name: Literal["SessionEnd"]
    reason: Annotated[str, _known("clear", "resume", "logout", "prompt_input_exit", "other")]


class SetupInput(HookInput, kw_only=True, frozen=True, omit_defaults=True):
    """Repository setup (``--init``) or maintenance."""

    hook_event_name: Literal["Setup"]
    trigger: Annotated[str, _known("init", "maintenance")]


class BackgroundTask(msgspec.Struct, kw_only=True, frozen=True, omit_defaults=True):
    """A task still running in the background."""

    id: str
    type: str
    status: str
    description: str
    command: str | None = None
    agent_type: str | None = None
    server: str | None = None
    tool: str | None = None
    name: str | None = None


class SessionCron(msgspec.Struct, kw_only=True, frozen=True, omit_defaults=True):
    """A scheduled prompt of the session."""

    id: str
    schedule: str
    recurring: bool
    prompt: str


class StopInput(HookInput, kw_only=True, frozen=True, omit_defaults=True):
    """The main agent is about to stop."""

    hook_event_name: Literal["Stop"]
    stop_hook_active: bool
    last_assistant_message: str | None = None
    background_tasks: list[BackgroundTask] | None = None
    session_crons: list[SessionCron] | None = None


class StopFailureInput(HookInput, kw_only=True, frozen=True, omit_defaults=True):
    """The turn ended on an API error."""

    hook_event_name: Literal["StopFailure"]
    error: Annotated[
        str, _known("rate_limit", "overloaded", "server_error", "authentication_failed", "...")
    ]
    error_details: str | None = None
    last_assistant_message: str | None = None


class SubagentStartInput(HookInput, kw_only=True, frozen=True, omit_defaults=True):
    """A subagent starts."""

    hook_event_name: Literal["SubagentStart"]
    agent_id: str
    agent_type: str


class SubagentStopInput(HookInput, kw_only=True, frozen=True, omit_defaults=True):
    """A subagent is about to stop."""

    hook_event_name: Literal["SubagentStop"]
    stop_hook_active: bool
    agent_id: str
    agent_type: str
    agent_transcript_path: str
    last_assistant_message: str | None = None
    background_tasks: list[BackgroundTask] | None = None
    session_crons: list[SessionCron] | None = None


class PreCompactInput(HookInput, kw_only=True, frozen=True, omit_defaults=True):
    """Before the conversation is compacted."""

    hook_event_name: Literal["PreCompact"]
    trigger: Annotated[str, _known("manual", "auto")]
    custom_instructions: str | None


class PostCompactInput(HookInput, kw_only=True, frozen=True, omit_defaults=True):
    """After the conversation was compacted."""

    hook_event_name: Literal["PostCompact"]
    trigger: Annotated[str, _known("manual", "auto")]
    compact_summary: str
