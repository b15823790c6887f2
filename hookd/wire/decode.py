"""Decoding: one line of bytes into typed messages, in two steps.

One fast typed decode of the common case; on failure a permissive decode that
recovers the request id, so a broken request can still be answered with an error.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from hookd.json_words import msgspec_problem
from hookd.wire.errors import UNSUPPORTED_SUBTYPE_TEXT, ErrorKind
from hookd.wire.messages import (
    RPC_CANCEL_METHOD,
    RPC_METHODS,
    SUBTYPES,
    Body,
    Call,
    Cancel,
    Framing,
    Invalid,
    Message,
    Passthrough,
    RequestId,
)

__all__ = ["UNREADABLE", "decode_line", "error_path"]


class _ControlRequest(msgspec.Struct, tag="control_request", tag_field="type"):
    request_id: str
    request: Body


class _ControlCancel(msgspec.Struct, tag="control_cancel_request", tag_field="type"):
    request_id: str


_fast_decoder: Final = msgspec.json.Decoder(_ControlRequest | _ControlCancel)
any_decoder: Final = msgspec.json.Decoder()
#: what msgspec raises on unreadable input: invalid UTF-8 and deep nesting are not DecodeErrors
UNREADABLE: Final = (msgspec.DecodeError, UnicodeDecodeError, RecursionError)


def decode_line(line: bytes) -> Message | list[Message]:
    """Decode one framed line (without its newline).

    A non-empty JSON-RPC batch gives a list of messages (answered together as
    one array); anything else gives one message. Never raises: anything
    unusable becomes an :class:`Invalid` or a :class:`Passthrough`.
    """
    try:
        msg = _fast_decoder.decode(line)
    except UNREADABLE:
        return _decode_slow(line)
    if isinstance(msg, _ControlRequest):
        return Call("control", msg.request_id, msg.request)
    return Cancel("control", msg.request_id)


def _decode_slow(line: bytes) -> Message | list[Message]:
    try:
        obj = any_decoder.decode(line)
    except UNREADABLE as exc:
        return _unparseable(line, exc)
    if isinstance(obj, list):
        if not obj:
            return Invalid("jsonrpc", None, ErrorKind.INVALID_REQUEST, "empty batch")
        if not any(isinstance(item, dict) for item in obj):
            return Passthrough("<array of non-objects>")
        return _decode_batch(obj)
    if not isinstance(obj, dict):
        return Passthrough("<not an object>")
    if "jsonrpc" in obj:
        return _decode_rpc(obj)
    return _decode_control(obj)


def _unparseable(line: bytes, exc: Exception) -> Invalid:
    rpc = b'"jsonrpc"' in line[:4096]
    return Invalid(
        "jsonrpc" if rpc else "control",
        None,
        ErrorKind.PARSE_ERROR,
        f"invalid JSON: {exc}",
        answer=rpc,
    )


# ----------------------------------------------------------------- control protocol


def _decode_control(obj: dict[str, Any]) -> Message:
    kind = obj.get("type")
    if kind == "control_request":
        return _control_request(obj)
    if kind == "control_cancel_request":
        rid = obj.get("request_id")
        if _is_id(rid) and isinstance(rid, str):
            return Cancel("control", rid)
        return Invalid(
            "control", None, ErrorKind.INVALID_REQUEST, "cancel without request_id", False
        )
    return Passthrough(kind if isinstance(kind, str) else "<untyped>", obj)


def _control_request(obj: dict[str, Any]) -> Message:
    rid = obj.get("request_id")
    if not isinstance(rid, str):
        note = "missing" if rid is None else "not a string"
        return Invalid("control", None, ErrorKind.INVALID_REQUEST, f"request_id {note}", False)
    body = obj.get("request")
    if not isinstance(body, dict):
        return Invalid("control", rid, ErrorKind.INVALID_REQUEST, "request: expected an object")
    subtype = body.get("subtype")
    if not isinstance(subtype, str):
        return Invalid("control", rid, ErrorKind.INVALID_REQUEST, "request.subtype missing")
    if subtype not in SUBTYPES:
        text = UNSUPPORTED_SUBTYPE_TEXT.format(subtype=subtype)
        return Invalid("control", rid, ErrorKind.UNSUPPORTED_REQUEST, text)
    return _convert_body("control", rid, RPC_METHODS[subtype], body, ErrorKind.INVALID_REQUEST)


def _convert_body(
    framing: Framing,
    rid: RequestId | None,
    body_type: type[Body],
    params: dict[str, Any],
    kind: ErrorKind,
) -> Message:
    fields = {k: v for k, v in params.items() if k != "subtype"}
    try:
        body = msgspec.convert(fields, body_type)
    except msgspec.ValidationError as exc:
        return Invalid(framing, rid, kind, f"request: {error_path(exc)}")
    return Call(framing, rid, body)


def error_path(exc: msgspec.ValidationError) -> str:
    """msgspec says ``Object missing required field `x` - at `$.y` ``; keep it readable."""
    problem = msgspec_problem(str(exc))
    what = problem.what.replace("`", "'")
    if not problem.path:
        return what
    at = problem.path[1:] if problem.path.startswith(".") else "$" + problem.path
    key = "'key' in " if problem.key else ""
    return f"{what} - at {key}'{at}'"


# ------------------------------------------------------------------------- JSON-RPC


def _is_id(value: object) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


def _decode_batch(items: list[Any]) -> list[Message]:
    out: list[Message] = []
    for item in items:
        if isinstance(item, dict):
            out.append(_decode_rpc(item))
        else:
            out.append(
                Invalid("jsonrpc", None, ErrorKind.INVALID_REQUEST, "batch item not an object")
            )
    return out


def _decode_rpc(obj: dict[str, Any]) -> Message:
    rid = obj.get("id")
    has_id = "id" in obj
    if has_id and not _is_id(rid):
        rid = None
    method = obj.get("method")
    if obj.get("jsonrpc") != "2.0" or not isinstance(method, str):
        if "result" in obj or "error" in obj:
            return Passthrough("jsonrpc_response", obj)
        return Invalid("jsonrpc", rid, ErrorKind.INVALID_REQUEST, "not a JSON-RPC 2.0 request")
    params = obj.get("params", {})
    if method == RPC_CANCEL_METHOD:
        return _rpc_cancel(params)
    if has_id and rid is None:
        return Invalid(
            "jsonrpc", None, ErrorKind.INVALID_REQUEST, "id: expected a string or an integer"
        )
    if not has_id:
        rid = None  # a notification: run, but never answer
    body_type = RPC_METHODS.get(method)
    if body_type is None:
        return Invalid(
            "jsonrpc", rid, ErrorKind.UNSUPPORTED_REQUEST, f"Unsupported method: {method}"
        )
    if not isinstance(params, dict):
        return Invalid("jsonrpc", rid, ErrorKind.INVALID_PARAMS, "params: expected an object")
    return _convert_body("jsonrpc", rid, body_type, params, ErrorKind.INVALID_PARAMS)


def _rpc_cancel(params: object) -> Message:
    target = params.get("id") if isinstance(params, dict) else None
    if _is_id(target):
        assert isinstance(target, str | int)
        return Cancel("jsonrpc", target)
    return Invalid("jsonrpc", None, ErrorKind.INVALID_PARAMS, "$/cancelRequest without id", False)
