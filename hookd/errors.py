"""The exceptions hookd raises, and the ones a hook raises to talk to hookd.

No imports: every layer imports it, the start-up fast paths included. The
wire's error table is :mod:`hookd.wire.errors`; the wording error messages
share is :mod:`hookd.json_words`.
"""

from __future__ import annotations

__all__ = [
    "HookAbortError",
    "HookdError",
    "InvalidOutputError",
    "RetryableHookError",
]


class HookdError(Exception):
    """Base class of every error hookd raises on purpose."""


class InvalidOutputError(HookdError):
    """A hook returned an output its event's schema rejects.

    ``message`` names the JSON path and the rule broken, e.g.
    ``hookSpecificOutput.permissionDecision: 'maybe' is not one of allow, deny, ask, defer``.
    """


class HookAbortError(HookdError):
    """Raised by a hook to stop the whole agent run, not only the action.

    hookd answers ``{"continue": false, "stopReason": reason}`` (and a deny on
    PreToolUse), whatever the hook's failure policy says.
    """

    def __init__(self, reason: str = "") -> None:
        super().__init__(reason)
        self.reason = reason


class RetryableHookError(HookdError):
    """Raised by a hook with a retry policy to ask for another attempt."""
