"""What a hook may answer each event: strict output Structs, built from one table.

An unknown field or a value outside its set is an error, so that a typo cannot
turn a deny into nothing. An event's output is :class:`SyncOutput` plus its own
``hookSpecificOutput`` Struct (built from :data:`_SPECIFIC`), or the
:class:`AsyncOutput` form. Wire names are camelCase (``suppressOutput``,
``continue``, ``async``); Python names are snake_case.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Final, Literal, TypeAlias

import msgspec
from msgspec import UNSET, Meta, UnsetType

from hookd.events.inputs import JsonObject

__all__ = [
    "AddDirectories",
    "AddRules",
    "AllowDecision",
    "AsyncOutput",
    "DenyDecision",
    "Destination",
    "PermissionMode",
    "PermissionRule",
    "PermissionUpdate",
    "RemoveDirectories",
    "RemoveRules",
    "ReplaceRules",
    "RuleBehavior",
    "SetMode",
    "SyncOutput",
    "output_type_for",
    "specific_type",
]

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


def specific_type(event: str) -> type[msgspec.Struct] | None:
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


def output_type_for(event: str, specific: type[msgspec.Struct] | None) -> type[msgspec.Struct]:
    fields: list[_Field] = (
        [] if specific is None else [("hook_specific_output", specific | UnsetType, UNSET)]
    )
    cls = msgspec.defstruct(
        f"{event}Output", fields, bases=(SyncOutput,), module=__name__, kw_only=True, frozen=True
    )
    cls.__doc__ = f"The output of a {event} hook."
    return cls
