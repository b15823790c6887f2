"""Reading any decoded protocol message: what it is, whose answer, and what it carries.

:func:`hookd.wire.decode_line` is strict: it types the requests hookd serves.
:func:`classify` is lenient: it tells what any JSON object on the wire is, in
either framing, so tools that watch, record or replay traffic read it here:

* a request (``control_request``, or a JSON-RPC object with a ``method``),
* a cancel (``control_cancel_request``, or ``$/cancelRequest``),
* a response (``control_response``, or a JSON-RPC object with a ``result``
  or an ``error`` and no ``method``),

with its request id as written (not checked), its method or subtype, the body
or params of a request and the payload or error of a response. Anything else
(conversation messages, non-objects) is None.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from hookd.wire.messages import RPC_CANCEL_METHOD, Framing

__all__ = ["Classified", "Kind", "classify", "with_body", "with_payload"]

Kind = Literal["request", "cancel", "response"]


class Classified(msgspec.Struct, frozen=True):
    """One protocol message, read leniently.

    ``request_id`` is the id as written, None when absent (for a cancel: the id
    of the request it withdraws). ``notification`` marks a JSON-RPC request
    without an id, which is never answered.
    """

    kind: Kind
    framing: Framing
    request_id: Any = None
    name: str | None = None  # a request's method or subtype
    body: dict[str, Any] | None = None  # a request's body or params, when an object
    notification: bool = False
    success: bool = False  # a response that carries a payload (not an error)
    payload: Any = None  # a success response's ``response`` / ``result``
    error: Any = None  # an error response's ``error`` (text, or the JSON-RPC error object)


def classify(msg: Any) -> Classified | None:
    """What ``msg`` (a decoded JSON value) is in the protocol; None if no request,
    cancel or response (a batch is a list: classify its items one by one)."""
    if not isinstance(msg, dict):
        return None
    kind = msg.get("type")
    if kind == "control_request":
        body = msg.get("request")
        body = body if isinstance(body, dict) else None
        subtype = body.get("subtype") if body is not None else None
        name = subtype if isinstance(subtype, str) else None
        return Classified("request", "control", msg.get("request_id"), name, body)
    if kind == "control_cancel_request":
        return Classified("cancel", "control", msg.get("request_id"))
    if kind == "control_response":
        return _control_response(msg.get("response"))
    if "jsonrpc" in msg:
        return _rpc(msg)
    return None


def _control_response(response: Any) -> Classified:
    if not isinstance(response, dict):
        return Classified("response", "control")
    rid = response.get("request_id")
    if response.get("subtype") == "success":
        return Classified(
            "response", "control", rid, success=True, payload=response.get("response")
        )
    return Classified("response", "control", rid, error=response.get("error"))


def _rpc(msg: dict[str, Any]) -> Classified | None:
    params = msg.get("params")
    params = params if isinstance(params, dict) else None
    if "method" in msg:
        method = msg["method"]
        if method == RPC_CANCEL_METHOD:
            return Classified("cancel", "jsonrpc", params.get("id") if params else None)
        name = method if isinstance(method, str) else None
        rid = msg.get("id")
        return Classified("request", "jsonrpc", rid, name, params, notification="id" not in msg)
    if "result" in msg:
        return Classified("response", "jsonrpc", msg.get("id"), success=True, payload=msg["result"])
    if "error" in msg:
        return Classified("response", "jsonrpc", msg.get("id"), error=msg["error"])
    return None


def with_payload(msg: Any, payload: Any) -> Any:
    """A copy of the success response ``msg`` (either framing) carrying ``payload``;
    ``msg`` itself when it is no success response."""
    seen = classify(msg)
    if seen is None or seen.kind != "response" or not seen.success:
        return msg
    if seen.framing == "jsonrpc":
        return {**msg, "result": payload}
    return {**msg, "response": {**msg["response"], "response": payload}}


def with_body(msg: Any, body: dict[str, Any]) -> Any:
    """A copy of the request ``msg`` (either framing) carrying ``body`` as its body or
    params; ``msg`` itself when it is no request."""
    seen = classify(msg)
    if seen is None or seen.kind != "request":
        return msg
    return {**msg, "params" if seen.framing == "jsonrpc" else "request": body}
