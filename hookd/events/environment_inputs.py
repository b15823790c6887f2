"""What the CLI sends the events around the session's environment: models, teammates,
tasks, MCP elicitations, settings, worktrees, instructions, folders and files, messages.

The same rules as :mod:`hookd.events.inputs`: required fields required, unknown
fields and values accepted.
"""

from __future__ import annotations

from typing import Annotated, Literal

from hookd.events.inputs import HookInput, JsonObject, Number, _known

__all__ = [
    "ConfigChangeInput",
    "CwdChangedInput",
    "DirectoryAddedInput",
    "ElicitationInput",
    "ElicitationResultInput",
    "FileChangedInput",
    "InstructionsLoadedInput",
    "MessageDisplayInput",
    "PostModelSwitchInput",
    "PreModelSwitchInput",
    "TaskCompletedInput",
    "TaskCreatedInput",
    "TeammateIdleInput",
    "WorktreeCreateInput",
    "WorktreeRemoveInput",
]


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
