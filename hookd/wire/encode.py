"""Encoding: answers and requests into framed lines."""

from __future__ import annotations

from typing import Any, Final, Literal

import msgspec

from hookd.wire.errors import ErrorKind
from hookd.wire.messages import Body, Framing, Initialize, RequestId

__all__ = [
    "encode_batch",
    "encode_initialize",
    "encode_message",
    "encode_request",
    "encode_success",
    "error_object",
    "success_object",
]


# Answers are trees made for every request: untracked by the garbage collector.
class _Success(msgspec.Struct, gc=False):
    subtype: Literal["success"]
    request_id: str
    response: Any


class _Error(msgspec.Struct, omit_defaults=True, gc=False):
    subtype: Literal["error"]
    request_id: str
    error: str
    error_code: str | None = None


class _ControlResponse(msgspec.Struct, tag="control_response", tag_field="type", gc=False):
    response: _Success | _Error


class _RpcErrorBody(msgspec.Struct, gc=False):
    code: int
    message: str
    data: dict[str, str]


class _RpcResult(msgspec.Struct, gc=False):
    jsonrpc: Literal["2.0"]
    id: RequestId | None
    result: Any


class _RpcError(msgspec.Struct, gc=False):
    jsonrpc: Literal["2.0"]
    id: RequestId | None
    error: _RpcErrorBody


_encoder: Final = msgspec.json.Encoder()


def success_object(framing: Framing, request_id: RequestId | None, payload: Any) -> msgspec.Struct:
    """The answer to a served request, as a struct (batches collect these)."""
    if framing == "jsonrpc":
        return _RpcResult("2.0", request_id, payload)
    return _ControlResponse(_Success("success", str(request_id), payload))


def error_object(
    framing: Framing, request_id: RequestId | None, kind: ErrorKind, message: str
) -> msgspec.Struct:
    """The error answer for ``kind``, from the one error table."""
    if framing == "jsonrpc":
        body = _RpcErrorBody(kind.jsonrpc_code, message, {"error_code": kind.error_code})
        return _RpcError("2.0", request_id, body)
    return _ControlResponse(_Error("error", str(request_id), message, kind.error_code))


def encode_success(framing: Framing, request_id: RequestId | None, payload: Any) -> bytes:
    """One framed success line. Raises TypeError if ``payload`` is not JSON-able."""
    if framing == "jsonrpc":  # success_object, written out: this runs for every answer
        return _encoder.encode(_RpcResult("2.0", request_id, payload)) + b"\n"
    return _encoder.encode(_ControlResponse(_Success("success", str(request_id), payload))) + b"\n"


def encode_batch(answers: list[msgspec.Struct]) -> bytes:
    """One framed JSON-RPC batch answer."""
    return _encoder.encode(answers) + b"\n"


def encode_message(obj: Any) -> bytes:
    """Any JSON value as one framed line (requests hookd itself sends)."""
    return _encoder.encode(obj) + b"\n"


def encode_request(request_id: RequestId, body: Body, framing: Framing = "control") -> bytes:
    """One framed request hookd (or a tool playing the CLI) sends: ``body`` under its
    subtype (control) or method (JSON-RPC); fields left at None are left out."""
    fields = {k: v for k, v in msgspec.to_builtins(body).items() if v is not None}
    name = fields.pop("subtype")
    if framing == "jsonrpc":
        return encode_message(
            {"jsonrpc": "2.0", "id": request_id, "method": name, "params": fields}
        )
    request = {"subtype": name, **fields}
    return encode_message({"type": "control_request", "request_id": request_id, "request": request})


def encode_initialize(request_id: RequestId, framing: Framing = "control") -> bytes:
    """One framed ``initialize`` request (no hooks of the sender's own)."""
    return encode_request(request_id, Initialize(), framing)
