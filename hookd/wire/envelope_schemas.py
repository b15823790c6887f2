"""JSON Schemas of the protocol's envelopes, written by hand (stdlib only).

Bodies without ``$schema``/``$id``: :mod:`hookd.published` names them and adds both.
"""

from __future__ import annotations

from typing import Any, Final

from hookd.wire.errors import ErrorKind

__all__ = ["ENVELOPES"]

Schema = dict[str, Any]

_ID: Final = {"type": ["string", "integer"], "description": "echoed as sent"}
_RPC_VERSION: Final = {"const": "2.0"}


def _body(subtype: str, required: list[str], properties: Schema) -> Schema:
    """``then`` branch for one request subtype."""
    condition = {"properties": {"subtype": {"const": subtype}}, "required": ["subtype"]}
    return {"if": condition, "then": {"required": required, "properties": properties}}


_CONTROL_REQUEST: Final[Schema] = {
    "title": "control_request",
    "description": "A request of the control protocol, in either direction. Extra fields are "
    "allowed: the CLI adds fields in every release.",
    "type": "object",
    "required": ["type", "request_id", "request"],
    "properties": {
        "type": {"const": "control_request"},
        "request_id": {"type": "string", "description": "chosen by the sender; opaque"},
        "request": {
            "type": "object",
            "required": ["subtype"],
            "properties": {"subtype": {"type": "string"}},
            "allOf": [
                _body(
                    "hook_callback",
                    ["callback_id", "input"],
                    {
                        "callback_id": {"type": "string"},
                        "input": {"type": "object"},
                        "tool_use_id": {"type": ["string", "null"]},
                    },
                ),
                _body(
                    "can_use_tool",
                    ["tool_name", "input"],
                    {"tool_name": {"type": "string"}, "input": {"type": "object"}},
                ),
                _body(
                    "hook_dispatch",
                    ["event", "input"],
                    {
                        "event": {"type": "string"},
                        "input": {"type": "object"},
                        "tool_use_id": {"type": ["string", "null"]},
                    },
                ),
            ],
        },
    },
}

_CONTROL_RESPONSE: Final[Schema] = {
    "title": "control_response",
    "description": "The one answer to a control_request: success or error. "
    "request_id sits inside response.",
    "type": "object",
    "required": ["type", "response"],
    "properties": {
        "type": {"const": "control_response"},
        "response": {
            "oneOf": [
                {
                    "type": "object",
                    "required": ["subtype", "request_id"],
                    "properties": {
                        "subtype": {"const": "success"},
                        "request_id": {"type": "string"},
                        "response": {"type": "object", "description": "the payload"},
                    },
                },
                {
                    "type": "object",
                    "required": ["subtype", "request_id", "error"],
                    "properties": {
                        "subtype": {"const": "error"},
                        "request_id": {"type": "string"},
                        "error": {"type": "string", "description": "human-readable text"},
                        "error_code": {
                            "type": "string",
                            "description": "machine-readable code, e.g. unknown_callback",
                        },
                    },
                },
            ]
        },
    },
}

_CONTROL_CANCEL: Final[Schema] = {
    "title": "control_cancel_request",
    "description": "Withdraws a request in flight. Never answered.",
    "type": "object",
    "required": ["type", "request_id"],
    "properties": {
        "type": {"const": "control_cancel_request"},
        "request_id": {"type": "string", "description": "the id of the withdrawn request"},
    },
}

_RPC_REQUEST: Final[Schema] = {
    "title": "JSON-RPC 2.0 request",
    "description": "A request; without id, a notification (never answered).",
    "type": "object",
    "required": ["jsonrpc", "method"],
    "properties": {
        "jsonrpc": _RPC_VERSION,
        "method": {"type": "string"},
        "params": {"type": ["object", "array"]},
        "id": _ID,
    },
    "additionalProperties": False,
}

_RPC_RESPONSE: Final[Schema] = {
    "title": "JSON-RPC 2.0 response",
    "description": "The success answer to a JSON-RPC request.",
    "type": "object",
    "required": ["jsonrpc", "id", "result"],
    "properties": {"jsonrpc": _RPC_VERSION, "id": _ID, "result": {}},
    "additionalProperties": False,
}

_RPC_ERROR: Final[Schema] = {
    "title": "JSON-RPC 2.0 error",
    "description": "hookd's error answer: the JSON-RPC code and, in data.error_code, the "
    "string code of the same error-table row. id is null when the request's id was unreadable.",
    "type": "object",
    "required": ["jsonrpc", "id", "error"],
    "properties": {
        "jsonrpc": _RPC_VERSION,
        "id": {"type": ["string", "integer", "null"]},
        "error": {
            "type": "object",
            "required": ["code", "message", "data"],
            "properties": {
                "code": {"enum": [kind.jsonrpc_code for kind in ErrorKind]},
                "message": {"type": "string"},
                "data": {
                    "type": "object",
                    "required": ["error_code"],
                    "properties": {"error_code": {"enum": [kind.error_code for kind in ErrorKind]}},
                },
            },
            "additionalProperties": False,
        },
    },
    "additionalProperties": False,
}

ENVELOPES: Final[dict[str, Schema]] = {
    "envelope/control-request": _CONTROL_REQUEST,
    "envelope/control-response": _CONTROL_RESPONSE,
    "envelope/control-cancel-request": _CONTROL_CANCEL,
    "envelope/jsonrpc-request": _RPC_REQUEST,
    "envelope/jsonrpc-response": _RPC_RESPONSE,
    "envelope/jsonrpc-error": _RPC_ERROR,
}
