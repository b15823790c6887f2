"""The hook events as plain data: name, matcher field and block style, in the CLI's order.

What loading a hooks module and answering ``initialize`` need of the catalogue
(is a name an event, which field its matcher is compared with, how it is
blocked), without building the catalogue's input and output Structs, which
:mod:`hookd.events.catalogue` adds to these rows and which start-up imports
in the background.
"""

from __future__ import annotations

from typing import Final, Literal, TypeAlias

__all__ = ["BLOCK_STYLE", "EVENT_NAMES", "MATCHER_FIELD", "TABLE", "BlockStyle"]

BlockStyle: TypeAlias = Literal["permission_decision", "permission_request", "decision", "none"]

_PD: Final = "permission_decision"
_PR: Final = "permission_request"
_D: Final = "decision"
_N: Final = "none"

#: (event, the input field its matcher is compared with or None, how a hook blocks it).
TABLE: Final[tuple[tuple[str, str | None, BlockStyle], ...]] = (
    ("PreToolUse", "tool_name", _PD),
    ("PostToolUse", "tool_name", _D),
    ("PostToolUseFailure", "tool_name", _D),
    ("PostToolBatch", None, _D),
    ("Notification", "notification_type", _N),
    ("UserPromptSubmit", None, _D),
    ("UserPromptExpansion", "command_name", _D),
    ("SessionStart", "source", _N),
    ("SessionEnd", "reason", _N),
    ("Stop", None, _D),
    ("StopFailure", "error", _N),
    ("SubagentStart", "agent_type", _N),
    ("SubagentStop", "agent_type", _D),
    ("PreCompact", "trigger", _D),
    ("PostCompact", "trigger", _N),
    ("PreModelSwitch", "to_model", _PD),
    ("PostModelSwitch", "to_model", _N),
    ("PermissionRequest", "tool_name", _PR),
    ("PermissionDenied", "tool_name", _N),
    ("Setup", "trigger", _N),
    ("TeammateIdle", None, _D),
    ("TaskCreated", None, _D),
    ("TaskCompleted", None, _D),
    ("Elicitation", "mcp_server_name", _D),
    ("ElicitationResult", "mcp_server_name", _D),
    ("ConfigChange", "source", _D),
    ("WorktreeCreate", None, _N),
    ("WorktreeRemove", None, _N),
    ("InstructionsLoaded", "load_reason", _N),
    ("CwdChanged", None, _N),
    ("FileChanged", "file_path", _N),
    ("DirectoryAdded", "source", _N),
    ("MessageDisplay", None, _N),
)

#: Every event name, in the CLI's order (a dict: ordered, and a fast membership test).
EVENT_NAMES: Final = dict.fromkeys(name for name, _, _ in TABLE)
MATCHER_FIELD: Final = {name: field for name, field, _ in TABLE}
BLOCK_STYLE: Final = {name: style for name, _, style in TABLE}
