"""Errors hookd raises, and the one table that turns them into wire errors.

This module imports only the standard library: the wire codec uses it.
Every failure that reaches the wire is described by an :class:`ErrorKind`
row: the control-protocol ``error_code`` string and the JSON-RPC 2.0 code
side by side. ``protocol/SPEC.md`` mirrors the table; a test keeps them equal.
"""

from __future__ import annotations

import enum
from typing import Final

__all__ = [
    "ErrorKind",
    "HookAbortError",
    "HookdError",
    "InvalidOutputError",
    "ProtocolError",
    "RetryableHookError",
]


class ErrorKind(enum.Enum):
    """One row of the error table: ``(error_code, jsonrpc_code)``."""

    PARSE_ERROR = ("parse_error", -32700)
    INVALID_REQUEST = ("invalid_request", -32600)
    UNSUPPORTED_REQUEST = ("unsupported_request", -32601)
    INVALID_PARAMS = ("invalid_params", -32602)
    INTERNAL_ERROR = ("internal_error", -32603)
    UNKNOWN_CALLBACK = ("unknown_callback", -32001)
    HOOK_EXECUTION_ERROR = ("hook_execution_error", -32002)
    HOOK_TIMEOUT = ("hook_timeout", -32003)
    INVALID_OUTPUT = ("invalid_output", -32004)
    OVERLOADED = ("overloaded", -32005)

    @property
    def error_code(self) -> str:
        return self.value[0]

    @property
    def jsonrpc_code(self) -> int:
        return self.value[1]


class HookdError(Exception):
    """Base class of every error hookd raises on purpose."""


class ProtocolError(HookdError):
    """A message that cannot be understood, with what can be said about it.

    ``request_id`` is set when the broken message still named its request, so
    that the request can be answered with an error instead of being dropped.
    """

    def __init__(
        self,
        message: str,
        *,
        kind: ErrorKind = ErrorKind.INVALID_REQUEST,
        request_id: str | int | None = None,
        jsonrpc: bool = False,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.request_id = request_id
        self.jsonrpc = jsonrpc


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


#: Literal texts shared with the official SDKs, for parity on the wire.
UNKNOWN_CALLBACK_TEXT: Final = "No hook callback found for ID: {callback_id}"
UNSUPPORTED_SUBTYPE_TEXT: Final = "Unsupported control request subtype: {subtype}"
NO_PERMISSION_CALLBACK_TEXT: Final = "canUseTool callback is not provided"
