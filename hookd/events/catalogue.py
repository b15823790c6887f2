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
from typing import Final

import msgspec

from hookd.events.environment_inputs import (
    ConfigChangeInput,
    CwdChangedInput,
    DirectoryAddedInput,
    ElicitationInput,
    ElicitationResultInput,
    FileChangedInput,
    InstructionsLoadedInput,
    MessageDisplayInput,
    PostModelSwitchInput,
    PreModelSwitchInput,
    TaskCompletedInput,
    TaskCreatedInput,
    TeammateIdleInput,
    WorktreeCreateInput,
    WorktreeRemoveInput,
)
from hookd.events.inputs import (
    BackgroundTask,
    Effort,
    HookInput,
    McpServer,
    NotificationInput,
    PermissionDeniedInput,
    PermissionRequestInput,
    PostCompactInput,
    PostToolBatchInput,
    PostToolUseFailureInput,
    PostToolUseInput,
    PreCompactInput,
    PreToolUseInput,
    SessionCron,
    SessionEndInput,
    SessionStartInput,
    SetupInput,
    StopFailureInput,
    StopInput,
    SubagentStartInput,
    SubagentStopInput,
    ToolCall,
    UserPromptExpansionInput,
    UserPromptSubmitInput,
)
from hookd.events.outputs import (
    AddDirectories,
    AddRules,
    AllowDecision,
    AsyncOutput,
    DenyDecision,
    PermissionRule,
    PermissionUpdate,
    RemoveDirectories,
    RemoveRules,
    ReplaceRules,
    SetMode,
    SyncOutput,
    output_type_for,
    specific_type,
)
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
        specific = specific_type(name)
        out_type = output_type_for(name, specific)
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
