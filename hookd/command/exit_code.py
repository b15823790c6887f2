"""The exit-code table of command hooks: how a finished command becomes an answer.

* 0: stdout is the JSON output if it starts with ``{`` (checked later like any
  callback's output); plain text fills :data:`TEXT_FIELD` where the event takes
  text, and is only logged elsewhere.
* 2: a blocking error; stderr is the reason, used as :data:`EXIT_2` says.
* anything else (a signal too): a non-blocking error; the answer carries stderr
  in ``systemMessage`` and the action proceeds.

WorktreeCreate is the exception: any non-zero exit fails the hook, so
:class:`CommandHookError` is raised and the failure policy answers.
"""

from __future__ import annotations

import enum
import signal
from collections.abc import Mapping
from typing import Any, Final

import msgspec

from hookd.command.result import MAX_OUTPUT_BYTES, Finished
from hookd.core.policy import deny_output
from hookd.errors import HookdError, InvalidOutputError

__all__ = [
    "EXIT_2",
    "MAX_MESSAGE_CHARS",
    "TEXT_FIELD",
    "CommandHookError",
    "Exit2",
    "clip",
    "fails_hook",
    "failure_text",
    "interpret",
    "text",
]

#: Longest text taken from a command's stderr into an answer or a log line.
MAX_MESSAGE_CHARS: Final = 10_000
_HINTS: Final = {126: "not executable", 127: "command not found"}


class CommandHookError(HookdError):
    """A command hook failed in a way that fails the hook (WorktreeCreate)."""


class Exit2(enum.Enum):
    """What exit status 2 (a blocking error) does on an event."""

    DENY = "deny"  # hookSpecificOutput.permissionDecision "deny", stderr as the reason
    BLOCK = "block"  # top-level decision "block", stderr as the reason
    DECLINE = "decline"  # hookSpecificOutput.action "decline", stderr in systemMessage
    FAIL = "fail"  # the hook fails: an error answer (any non-zero exit)
    SHOW = "show"  # cannot block: stderr in systemMessage only


_B, _S = Exit2.BLOCK, Exit2.SHOW
#: Exit 2 per event (Claude Code's table). Events not listed: SHOW.
EXIT_2: Final[Mapping[str, Exit2]] = {
    "PreToolUse": Exit2.DENY,
    "PreModelSwitch": Exit2.DENY,
    "PermissionRequest": _S,
    "PermissionDenied": _S,
    "UserPromptSubmit": _B,
    "UserPromptExpansion": _B,
    "PostToolUse": _B,
    "PostToolUseFailure": _B,
    "PostToolBatch": _B,
    "Stop": _B,
    "SubagentStop": _B,
    "TeammateIdle": _B,
    "TaskCreated": _B,
    "TaskCompleted": _B,
    "ConfigChange": _B,
    "PreCompact": _B,
    "Elicitation": Exit2.DECLINE,
    "ElicitationResult": Exit2.DECLINE,
    "WorktreeCreate": Exit2.FAIL,
    "StopFailure": _S,
    "Notification": _S,
    "SessionStart": _S,
    "SessionEnd": _S,
    "Setup": _S,
    "SubagentStart": _S,
    "CwdChanged": _S,
    "FileChanged": _S,
    "DirectoryAdded": _S,
    "PostCompact": _S,
    "WorktreeRemove": _S,
    "InstructionsLoaded": _S,
    "MessageDisplay": _S,
    "PostModelSwitch": _S,
}

#: Events whose plain-text stdout (exit 0) is used, and the output field it fills.
TEXT_FIELD: Final[Mapping[str, str]] = {
    "UserPromptSubmit": "additionalContext",
    "UserPromptExpansion": "additionalContext",
    "SessionStart": "additionalContext",
    "WorktreeCreate": "worktreePath",
}


def fails_hook(event: str) -> bool:
    """Whether any failure of a command fails the hook itself on ``event``."""
    return EXIT_2.get(event) is Exit2.FAIL


def interpret(
    event: str, done: Finished, label: str, max_output_bytes: int = MAX_OUTPUT_BYTES
) -> dict[str, Any]:
    """The answer for a command of ``event`` that ended as ``done``."""
    match done.returncode:
        case 0:
            return _success(event, done, max_output_bytes)
        case 2:
            reason = clip(text(done.stderr))
            return _blocking(event, reason or f"blocked by hook command `{label}` (exit code 2)")
        case code:
            message = failure_text(label, code, done.stderr)
            if fails_hook(event):
                raise CommandHookError(message)
            return {"systemMessage": message}


def _success(event: str, done: Finished, max_output_bytes: int) -> dict[str, Any]:
    if done.stdout_truncated:
        raise InvalidOutputError(f"stdout is longer than {max_output_bytes} bytes")
    out = text(done.stdout)
    if out.startswith("{"):
        try:
            output: dict[str, Any] = msgspec.json.decode(out)
        except msgspec.DecodeError as exc:
            raise InvalidOutputError(f"stdout starts with '{{' but is not JSON: {exc}") from None
        return output
    field = TEXT_FIELD.get(event)
    if not out or field is None:
        return {}
    return {"hookSpecificOutput": {"hookEventName": event, field: out}}


def _blocking(event: str, reason: str) -> dict[str, Any]:
    match EXIT_2.get(event, Exit2.SHOW):
        case Exit2.DENY:
            return deny_output(event, reason)
        case Exit2.BLOCK:
            return {"decision": "block", "reason": reason}
        case Exit2.DECLINE:
            return {
                "hookSpecificOutput": {"hookEventName": event, "action": "decline"},
                "systemMessage": reason,
            }
        case Exit2.FAIL:
            raise CommandHookError(reason)
        case Exit2.SHOW:
            return {"systemMessage": reason}


def failure_text(label: str, code: int, stderr: bytes) -> str:
    """The ``systemMessage`` of a non-blocking error: what happened, then stderr."""
    if code < 0:
        how = f"was killed by {_signal_name(-code)}"
    else:
        hint = f", {_HINTS[code]}" if code in _HINTS else ""
        how = f"failed (exit code {code}{hint})"
    detail = clip(text(stderr))
    return f"hook command `{label}` {how}" + (f": {detail}" if detail else "")


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def text(data: bytes) -> str:
    """Bytes a command wrote, as stripped text (bad UTF-8 replaced)."""
    return data.decode("utf-8", errors="replace").strip()


def clip(value: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``value`` cut to ``limit`` characters (an ellipsis marks the cut)."""
    return value if len(value) <= limit else value[: limit - 1] + "…"
