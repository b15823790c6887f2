"""The one error table: every failure that reaches the wire, in both framings.

Each :class:`ErrorKind` row holds the control-protocol ``error_code`` string and
the JSON-RPC 2.0 code side by side. ``protocol/SPEC.md`` mirrors the table; a
test keeps them equal.
"""

from __future__ import annotations

import enum
from typing import Final

__all__ = [
    "NO_PERMISSION_CALLBACK_TEXT",
    "UNKNOWN_CALLBACK_TEXT",
    "UNSUPPORTED_SUBTYPE_TEXT",
    "ErrorKind",
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


#: Literal texts shared with the official SDKs, for parity on the wire.
UNKNOWN_CALLBACK_TEXT: Final = "No hook callback found for ID: {callback_id}"
UNSUPPORTED_SUBTYPE_TEXT: Final = "Unsupported control request subtype: {subtype}"
NO_PERMISSION_CALLBACK_TEXT: Final = "canUseTool callback is not provided"
