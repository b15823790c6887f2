"""The catalogue of the CLI's 33 hook events: inputs, outputs, matchers, blocking.

Each event has an :class:`EventSpec`: the input field its matcher is compared
with, how it is blocked, its input Struct and its output Structs.

* **Inputs** (``PreToolUseInput``, ...) are what the CLI sends. Required fields
  are required, optional ones default to ``None``. Unknown fields are accepted,
  and so are unknown values of enum-like fields: the CLI adds both in every
  release. A callback may ask for one instead of the dict, for attribute access.
* **Outputs** are what a hook may answer. They are strict: an unknown field or a
  value outside its set is an error, so that a typo cannot turn a deny into
  nothing. An event's output is :class:`SyncOutput` plus its own
  ``hookSpecificOutput`` Struct (built from one table, :data:`_SPECIFIC`), or
  the :class:`AsyncOutput` form.

Wire names are camelCase (``suppressOutput``, ``continue``, ``async``); Python
names are snake_case. The JSON Schemas in ``schemas/events/`` are generated from
these types by :mod:`hookd.events.event_schemas`, so the two cannot drift.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Annotated, Any, Final, Literal, TypeAlias

import msgspec
from msgspec import UNSET, Meta, UnsetType

from hookd.events.table import TABLE, BlockStyle

__all__ = [
    "EVENTS",
    "EVENT_SPECS",
    "AddDirectories",
    "AddRules",
    "AllowDecision",
    "AsyncOutput",
    "BackgroundTask",
    "BlockStyle",
    "ConfigChangeInput",
    "CwdChangedInput",
    "DenyDecision",
    "DirectoryAddedInput",
    "Effort",
    "ElicitationInput",
    "ElicitationResultInput",
    "EventSpec",
    "FileChangedInput",
    "HookInput",
    "InstructionsLoadedInput",
    "McpServer",
    "MessageDisplayInput",
    "NotificationInput",
    "PermissionDeniedInput",
    "PermissionRequestInput",
    "PermissionRule",
    "PermissionUpdate",
    "PostCompactInput",
    "PostModelSwitchInput",
    "PostToolBatchInput",
    "PostToolUseFailureInput",
    "PostToolUseInput",
    "PreCompactInput",
    "PreModelSwitchInput",
    "PreToolUseInput",
    "RemoveDirectories",
    "RemoveRules",
    "ReplaceRules",
    "SessionCron",
    "SessionEndInput",
    "SessionStartInput",
    "SetMode",
    "SetupInput",
    "StopFailureInput",
    "StopInput",
    "SubagentStartInput",
    "SubagentStopInput",
    "SyncOutput",
    "TaskCompletedInput",
    "TaskCreatedInput",
    "TeammateIdleInput",
    "ToolCall",
    "UserPromptExpansionInput",
    "UserPromptSubmitInput",
    "WorktreeCreateInput",
    "WorktreeRemoveInput",
    "input_type",
    "output_type",
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


class _ModelSwitchInput(HookInput, kw_only=True, frozen=True, omit_defaults=True):
    from_model: str
    to_model: str
    requested_model: str | None
    source: Annotated[str, _known("command", "picker", "sdk", "auto", "resume")]
    context_tokens: Number
    prompt_cache_warm: bool
    cache_ttl: Annotated[str, _known("5m", "1h")]
    estimated_cache_write_usd: Number
    pricing: Annotated[str, _known("configured", "catalog", "default")]


class PreModelSwitchInput(_ModelSwitchInput, kw_only=True, frozen=True, omit_defaults=True):
    """Before the model is switched."""

    hook_event_name: Literal["PreModelSwitch"]


class PostModelSwitchInput(_ModelSwitchInput, kw_only=True, frozen=True, omit_defaults=True):
    """After the model was switched."""

    hook_event_name: Literal["PostModelSwitch"]


class TeammateIdleInput(HookInput, kw_only=True, frozen=True, omit_defaults=True):
    """A teammate of an agent team is about to go idle."""

    hook_event_name: Literal["TeammateIdle"]
    teammate_name: str
    team_name: str


class _TaskInput(HookInput, kw_only=True, frozen=True, omit_defaults=True):
    task_id: str
    task_subject: str
    task_description: str | None = None
    teammate_name: str | None = None
    team_name: str | None = None


class TaskCreatedInput(_TaskInput, kw_only=True, frozen=True, omit_defaults=True):
    """A task is being created."""

    hook_event_name: Literal["TaskCreated"]


class TaskCompletedInput(_TaskInput, kw_only=True, frozen=True, omit_defaults=True):
    """A task is being marked completed."""

    hook_event_name: Literal["TaskCompleted"]


class ElicitationInput(HookInput, kw_only=True, frozen=True, omit_defaults=True):
    """An MCP server asks the user for input."""

    hook_event_name: Literal["Elicitation"]
    mcp_server_name: str
    message: str
    mode: Annotated[str, _known("form", "url")] | None = None
    url: str | None = None
    elicitation_id: str | None = None
    requested_schema: JsonObject | None = None


class ElicitationResultInput(HookInput, kw_only=True, frozen=True, omit_defaults=True):
    """The user answered an MCP elicitation."""

    hook_event_name: Literal["ElicitationResult"]
    mcp_server_name: str
    action: Annotated[str, _known("accept", "decline", "cancel")]
    elicitation_id: str | None = None
    mode: Annotated[str, _known("form", "url")] | None = None
    content: JsonObject | None = None


class ConfigChangeInput(HookInput, kw_only=True, frozen=True, omit_defaults=True):
    """A settings file or the skills changed."""

    hook_event_name: Literal["ConfigChange"]
    source: Annotated[
        str,
        _known("user_settings", "project_settings", "local_settings", "policy_settings", "skills"),
    ]
    file_path: str | None = None


class WorktreeCreateInput(HookInput, kw_only=True, frozen=True, omit_defaults=True):
    """A git worktree is to be created; the hook answers its path."""

    hook_event_name: Literal["WorktreeCreate"]
    name: str


class WorktreeRemoveInput(HookInput, kw_only=True, frozen=True, omit_defaults=True):
    """A git worktree is to be removed."""

    hook_event_name: Literal["WorktreeRemove"]
    worktree_path: str


class InstructionsLoadedInput(HookInput, kw_only=True, frozen=True, omit_defaults=True):
    """A CLAUDE.md or rules file was loaded."""

    hook_event_name: Literal["InstructionsLoaded"]
    file_path: str
    memory_type: Annotated[str, _known("User", "Project", "Local", "Managed")]
    load_reason: Annotated[
        str, _known("session_start", "nested_traversal", "path_glob_match", "include", "compact")
    ]
    globs: list[str] | None = None
    trigger_file_path: str | None = None
    parent_file_path: str | None = None


class CwdChangedInput(HookInput, kw_only=True, frozen=True, omit_defaults=True):
    """The working directory changed."""

    hook_event_name: Literal["CwdChanged"]
    old_cwd: str
    new_cwd: str


class FileChangedInput(HookInput, kw_only=True, frozen=True, omit_defaults=True):
    """A watched file changed."""

    hook_event_name: Literal["FileChanged"]
    file_path: str
    event: Annotated[str, _known("change", "add", "unlink")]


class DirectoryAddedInput(HookInput, kw_only=True, frozen=True, omit_defaults=True):
    """A working directory was added to the session."""

    hook_event_name: Literal["DirectoryAdded"]
    directory: str
    source: Annotated[str, _known("slash_command", "register_repo_root")]


class MessageDisplayInput(HookInput, kw_only=True, frozen=True, omit_defaults=True):
    """A piece of an assistant message is about to be displayed."""

    hook_event_name: Literal["MessageDisplay"]
    turn_id: str
    message_id: str
    index: int
    final: bool
    delta: str


# ---------------------------------------------------------------------------- outputs

_WIRE_NAMES: Final = {
    "continue_": "continue",
    "async_": "async",
    "updated_mcp_tool_output": "updatedMCPToolOutput",
}


def _wire_name(name: str) -> str:
    """The wire name of an output field: camelCase, with the few exceptions above."""
    if name in _WIRE_NAMES:
        return _WIRE_NAMES[name]
    head, *rest = name.split("_")
    return head + "".join(word.capitalize() for word in rest)


class _Strict(
    msgspec.Struct,
    kw_only=True,
    frozen=True,
    forbid_unknown_fields=True,
    omit_defaults=True,
    rename=_wire_name,
):
    """Base of the output Structs: unknown fields are errors."""


class SyncOutput(_Strict, kw_only=True, frozen=True):
    """The fields every event's output may carry."""

    continue_: Annotated[bool, Meta(description="false stops the agent loop")] | UnsetType = UNSET
    suppress_output: bool | UnsetType = UNSET
    stop_reason: Annotated[str, Meta(description="shown when continue is false")] | UnsetType = (
        UNSET
    )
    decision: Literal["block", "approve"] | UnsetType = UNSET
    system_message: Annotated[str, Meta(description="a warning for the user")] | UnsetType = UNSET
    reason: Annotated[str, Meta(description="feedback for the model")] | UnsetType = UNSET
    terminal_sequence: str | UnsetType = UNSET


class AsyncOutput(_Strict, kw_only=True, frozen=True):
    """The asynchronous answer: the hook goes on in the background."""

    async_: Literal[True]
    async_timeout: Annotated[float, Meta(ge=0, description="milliseconds")] | UnsetType = UNSET


class PermissionRule(_Strict, kw_only=True, frozen=True):
    """A permission rule: a tool name and an optional rule content."""

    tool_name: str
    rule_content: str | UnsetType = UNSET


RuleBehavior: TypeAlias = Literal["allow", "deny", "ask"]
Destination: TypeAlias = Literal[
    "userSettings", "projectSettings", "localSettings", "session", "cliArg"
]
PermissionMode: TypeAlias = Literal[
    "default", "acceptEdits", "bypassPermissions", "plan", "dontAsk", "auto"
]


class _RulesUpdate(_Strict, kw_only=True, frozen=True):
    rules: list[PermissionRule]
    behavior: RuleBehavior
    destination: Destination


class AddRules(_RulesUpdate, kw_only=True, frozen=True, tag="addRules", tag_field="type"):
    """Add permission rules."""


class ReplaceRules(_RulesUpdate, kw_only=True, frozen=True, tag="replaceRules", tag_field="type"):
    """Replace the permission rules of a behavior."""


class RemoveRules(_RulesUpdate, kw_only=True, frozen=True, tag="removeRules", tag_field="type"):
    """Remove permission rules."""


class SetMode(_Strict, kw_only=True, frozen=True, tag="setMode", tag_field="type"):
    """Switch the permission mode."""

    mode: PermissionMode
    destination: Destination


class _DirectoriesUpdate(_Strict, kw_only=True, frozen=True):
    directories: list[str]
    destination: Destination


class AddDirectories(
    _DirectoriesUpdate, kw_only=True, frozen=True, tag="addDirectories", tag_field="type"
):
    """Add working directories."""


class RemoveDirectories(
    _DirectoriesUpdate, kw_only=True, frozen=True, tag="removeDirectories", tag_field="type"
):
    """Remove working directories."""


PermissionUpdate: TypeAlias = (
    AddRules | ReplaceRules | RemoveRules | SetMode | AddDirectories | RemoveDirectories
)


class AllowDecision(_Strict, kw_only=True, frozen=True, tag="allow", tag_field="behavior"):
    """Allow the tool call, optionally with a new input and new permission rules."""

    updated_input: JsonObject | UnsetType = UNSET
    updated_permissions: list[PermissionUpdate] | UnsetType = UNSET


class DenyDecision(_Strict, kw_only=True, frozen=True, tag="deny", tag_field="behavior"):
    """Deny the tool call; ``interrupt`` also stops the agent."""

    message: str | UnsetType = UNSET
    interrupt: bool | UnsetType = UNSET


_Field: TypeAlias = tuple[str, Any] | tuple[str, Any, Any]


def _opt(name: str, tp: Any, description: str | None = None) -> _Field:
    """An optional output field (absent unless set)."""
    if description is not None:
        tp = Annotated[tp, Meta(description=description)]
    return (name, tp | UnsetType, UNSET)


_CONTEXT: Final = _opt("additional_context", str, "text added to the model's context")
_WATCH: Final = _opt("watch_paths", list[str], "absolute paths to watch for FileChanged hooks")
_ACTION: Final = (
    _opt("action", Literal["accept", "decline", "cancel"]),
    _opt("content", JsonObject),
)
_SUPPRESS: Final = _opt("suppress_original_prompt", bool, "omit the prompt from a block message")

#: The fields of each event's ``hookSpecificOutput`` besides ``hookEventName``.
#: Events not listed take no ``hookSpecificOutput``.
_SPECIFIC: Final[Mapping[str, tuple[_Field, ...]]] = {
    "PreToolUse": (
        _opt("permission_decision", Literal["allow", "deny", "ask", "defer"]),
        _opt("permission_decision_reason", str),
        _opt("updated_input", JsonObject, "replaces the whole tool input"),
        _CONTEXT,
    ),
    "PermissionRequest": (("decision", AllowDecision | DenyDecision),),
    "PreModelSwitch": (
        _opt("permission_decision", Literal["allow", "deny", "ask"]),
        _opt("permission_decision_reason", str),
    ),
    "PostToolUse": (
        _CONTEXT,
        _opt("classifier_context", str),
        ("updated_tool_output", Any, UNSET),
        ("updated_mcp_tool_output", Any, UNSET),
    ),
    "UserPromptSubmit": (_CONTEXT, _opt("session_title", str), _SUPPRESS),
    "UserPromptExpansion": (_CONTEXT, _SUPPRESS),
    "SessionStart": (
        _CONTEXT,
        _opt("initial_user_message", str),
        _opt("session_title", str),
        _WATCH,
        _opt("reload_skills", bool),
    ),
    **{
        name: (_CONTEXT,)
        for name in (
            "PostToolUseFailure",
            "PostToolBatch",
            "Notification",
            "SubagentStart",
            "SubagentStop",
            "Stop",
            "Setup",
            "PostModelSwitch",
        )
    },
    "PermissionDenied": (_opt("retry", bool, "retry the denied tool call"),),
    "Elicitation": _ACTION,
    "ElicitationResult": _ACTION,
    "CwdChanged": (_WATCH,),
    "FileChanged": (_WATCH,),
    "WorktreeCreate": (("worktree_path", str),),
    "MessageDisplay": (_opt("display_content", str, "text displayed in place of the delta"),),
}


def _specific_type(event: str) -> type[msgspec.Struct] | None:
    """``<Event>HookSpecificOutput``: a required ``hookEventName`` equal to the event first."""
    fields = _SPECIFIC.get(event)
    if fields is None:
        return None
    # Literal[event] with a runtime value: the subscript written as a call.
    name_field: _Field = ("hook_event_name", Literal.__getitem__(event))
    cls = msgspec.defstruct(
        f"{event}HookSpecificOutput",
        [name_field, *fields],
        bases=(_Strict,),
        module=__name__,
        kw_only=True,
        frozen=True,
    )
    cls.__doc__ = f"The hookSpecificOutput of {event}; hookEventName must be {event!r}."
    return cls


def _output_type(event: str, specific: type[msgspec.Struct] | None) -> type[msgspec.Struct]:
    fields: list[_Field] = (
        [] if specific is None else [("hook_specific_output", specific | UnsetType, UNSET)]
    )
    cls = msgspec.defstruct(
        f"{event}Output", fields, bases=(SyncOutput,), module=__name__, kw_only=True, frozen=True
    )
    cls.__doc__ = f"The output of a {event} hook."
    return cls


# -------------------------------------------------------------------------- catalogue


@dataclass(frozen=True, slots=True)
class EventSpec:
    """One hook event.

    ``matcher_field`` is the input field its matcher is compared with (None: the
    event takes no matcher). ``block_style`` is how a hook blocks it:
    ``permission_decision`` (``hookSpecificOutput.permissionDecision: "deny"``),
    ``permission_request`` (``hookSpecificOutput.decision.behavior: "deny"``),
    ``decision`` (top-level ``decision: "block"``) or ``none``.
    """

    name: str
    matcher_field: str | None
    block_style: BlockStyle
    input_type: type[HookInput]
    hook_specific_type: type[msgspec.Struct] | None
    output_type: type[msgspec.Struct]


#: Each event's input Struct; the rows of :data:`hookd.events.table.TABLE` give the rest.
_INPUT_TYPES: Final[Mapping[str, type[HookInput]]] = {
    "PreToolUse": PreToolUseInput,
    "PostToolUse": PostToolUseInput,
    "PostToolUseFailure": PostToolUseFailureInput,
    "PostToolBatch": PostToolBatchInput,
    "Notification": NotificationInput,
    "UserPromptSubmit": UserPromptSubmitInput,
    "UserPromptExpansion": UserPromptExpansionInput,
    "SessionStart": SessionStartInput,
    "SessionEnd": SessionEndInput,
    "Stop": StopInput,
    "StopFailure": StopFailureInput,
    "SubagentStart": SubagentStartInput,
    "SubagentStop": SubagentStopInput,
    "PreCompact": PreCompactInput,
    "PostCompact": PostCompactInput,
    "PreModelSwitch": PreModelSwitchInput,
    "PostModelSwitch": PostModelSwitchInput,
    "PermissionRequest": PermissionRequestInput,
    "PermissionDenied": PermissionDeniedInput,
    "Setup": SetupInput,
    "TeammateIdle": TeammateIdleInput,
    "TaskCreated": TaskCreatedInput,
    "TaskCompleted": TaskCompletedInput,
    "Elicitation": ElicitationInput,
    "ElicitationResult": ElicitationResultInput,
    "ConfigChange": ConfigChangeInput,
    "WorktreeCreate": WorktreeCreateInput,
    "WorktreeRemove": WorktreeRemoveInput,
    "InstructionsLoaded": InstructionsLoadedInput,
    "CwdChanged": CwdChangedInput,
    "FileChanged": FileChangedInput,
    "DirectoryAdded": DirectoryAddedInput,
    "MessageDisplay": MessageDisplayInput,
}


def _build() -> dict[str, EventSpec]:
    specs = {}
    for name, matcher_field, block_style in TABLE:
        specific = _specific_type(name)
        out_type = _output_type(name, specific)
        in_type = _INPUT_TYPES[name]
        specs[name] = EventSpec(name, matcher_field, block_style, in_type, specific, out_type)
    return specs


#: Every hook event of the CLI, by name, in the CLI's order: the one table, for the hot
#: path's lookups (a plain dict: half the cost of one through a read-only proxy). Never changed.
EVENT_SPECS: Final[dict[str, EventSpec]] = _build()
#: The same, read-only.
EVENTS: Final[Mapping[str, EventSpec]] = MappingProxyType(EVENT_SPECS)


def input_type(event: str) -> type[msgspec.Struct] | None:
    """The input Struct of ``event``; None for an event not in the catalogue."""
    spec = EVENTS.get(event)
    return None if spec is None else spec.input_type


def output_type(event: str, *, is_async: bool = False) -> type[msgspec.Struct] | None:
    """The output Struct of ``event`` (:class:`AsyncOutput` if ``is_async``); None if unknown."""
    spec = EVENTS.get(event)
    if spec is None:
        return None
    return AsyncOutput if is_async else spec.output_type
