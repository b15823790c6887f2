"""The sans-IO codec: bytes in, typed messages out, and answers back to bytes.

Imports only the standard library and msgspec. Two framings share one model:

* the control protocol (``control_request`` / ``control_response`` /
  ``control_cancel_request``), whose requests carry a ``subtype``;
* JSON-RPC 2.0, whose requests carry the same names as ``method``.

Decoding is two-step: one fast typed decode of the common case, and on failure a
permissive decode that recovers the request id, so a broken request can still
be answered with an error.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Final, Literal

import msgspec

from hookd.errors import UNSUPPORTED_SUBTYPE_TEXT, ErrorKind

__all__ = [
    "Call",
    "CanUseTool",
    "Cancel",
    "Framing",
    "HookCallback",
    "HookDispatch",
    "Initialize",
    "Invalid",
    "LineFramer",
    "Oversize",
    "Passthrough",
    "decode_line",
    "encode_error",
    "encode_success",
]

Framing = Literal["control", "jsonrpc"]
RequestId = str | int

DEFAULT_MAX_LINE_BYTES: Final = 64 * 1024 * 1024


# --------------------------------------------------------------------------- bodies


class HookCallback(msgspec.Struct, tag="hook_callback", tag_field="subtype"):
    """Run one registered callback on a hook input."""

    callback_id: str
    input: dict[str, Any]
    tool_use_id: str | None = None


class Initialize(msgspec.Struct, tag="initialize", tag_field="subtype"):
    """Ask for the registered hooks (the CLI may send its own ``hooks``; ignored)."""

    hooks: Any = None


class CanUseTool(msgspec.Struct, tag="can_use_tool", tag_field="subtype"):
    """A permission question for a tool call."""

    tool_name: str
    input: dict[str, Any]
    tool_use_id: str | None = None
    permission_suggestions: list[Any] | None = None
    blocked_path: str | None = None
    decision_reason: str | None = None
    agent_id: str | None = None


class HookDispatch(msgspec.Struct, tag="hook_dispatch", tag_field="subtype"):
    """One call per event: hookd matches, runs and merges the hooks itself."""

    event: str
    input: dict[str, Any]
    tool_use_id: str | None = None


Body = HookCallback | Initialize | CanUseTool | HookDispatch

#: JSON-RPC method name -> body type. ``hooks/dispatch`` is the dispatch method's
#: JSON-RPC name; ``hook_dispatch`` its control-protocol subtype.
_RPC_METHODS: Final[dict[str, type[Body]]] = {
    "initialize": Initialize,
    "hook_callback": HookCallback,
    "can_use_tool": CanUseTool,
    "hooks/dispatch": HookDispatch,
    "hook_dispatch": HookDispatch,
}
_SUBTYPES: Final = frozenset({"initialize", "hook_callback", "can_use_tool", "hook_dispatch"})
RPC_CANCEL_METHOD: Final = "$/cancelRequest"


# ------------------------------------------------------------------------- messages


class Call(msgspec.Struct, frozen=True):
    """A request to answer. ``request_id`` is None for a JSON-RPC notification."""

    framing: Framing
    request_id: RequestId | None
    body: Body


class Cancel(msgspec.Struct, frozen=True):
    """The peer withdrew a request: it must not be answered."""

    framing: Framing
    request_id: RequestId


class Invalid(msgspec.Struct, frozen=True):
    """A message that cannot be served; answered with an error when it has an id."""

    framing: Framing
    request_id: RequestId | None
    kind: ErrorKind
    message: str
    answer: bool = True


class Passthrough(msgspec.Struct, frozen=True):
    """A line that is not a request for hookd (conversation messages, responses)."""

    type: str
    message: dict[str, Any] | None = None


class Oversize(msgspec.Struct, frozen=True):
    """A line longer than the cap: discarded, with whatever id its head revealed."""

    size: int
    head: bytes


Message = Call | Cancel | Invalid | Passthrough


# ------------------------------------------------------------------ typed decoding


class _ControlRequest(msgspec.Struct, tag="control_request", tag_field="type"):
    request_id: str
    request: Body


class _ControlCancel(msgspec.Struct, tag="control_cancel_request", tag_field="type"):
    request_id: str


_fast_decoder: Final = msgspec.json.Decoder(_ControlRequest | _ControlCancel)
_any_decoder: Final = msgspec.json.Decoder()
#: what msgspec raises on unreadable input: invalid UTF-8 and deep nesting are not DecodeErrors
_UNREADABLE: Final = (msgspec.DecodeError, UnicodeDecodeError, RecursionError)


def decode_line(line: bytes) -> Message | list[Message]:
    """Decode one framed line (without its newline).

    A non-empty JSON-RPC batch gives a list of messages (answered together as
    one array); anything else gives one message. Never raises: anything
    unusable becomes an :class:`Invalid` or a :class:`Passthrough`.
    """
    try:
        msg = _fast_decoder.decode(line)
    except _UNREADABLE:
        return _decode_slow(line)
    if isinstance(msg, _ControlRequest):
        return Call("control", msg.request_id, msg.request)
    return Cancel("control", msg.request_id)


def _decode_slow(line: bytes) -> Message | list[Message]:
    try:
        obj = _any_decoder.decode(line)
    except _UNREADABLE as exc:
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
    if subtype not in _SUBTYPES:
        text = UNSUPPORTED_SUBTYPE_TEXT.format(subtype=subtype)
        return Invalid("control", rid, ErrorKind.UNSUPPORTED_REQUEST, text)
    return _convert_body("control", rid, _RPC_METHODS[subtype], body, ErrorKind.INVALID_REQUEST)


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
        return Invalid(framing, rid, kind, f"request: {_where(exc)}")
    return Call(framing, rid, body)


def _where(exc: msgspec.ValidationError) -> str:
    """msgspec says ``Object missing required field `x` - at `$.y` ``; keep it readable."""
    text = str(exc).replace("`", "'")
    return text.replace(" - at '$'", "").replace("'$.", "'")


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
    body_type = _RPC_METHODS.get(method)
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


# ------------------------------------------------------------------------- encoding


class _Success(msgspec.Struct):
    subtype: Literal["success"]
    request_id: str
    response: Any


class _Error(msgspec.Struct, omit_defaults=True):
    subtype: Literal["error"]
    request_id: str
    error: str
    error_code: str | None = None


class _ControlResponse(msgspec.Struct, tag="control_response", tag_field="type"):
    response: _Success | _Error


class _RpcErrorBody(msgspec.Struct):
    code: int
    message: str
    data: dict[str, str]


class _RpcResult(msgspec.Struct):
    jsonrpc: Literal["2.0"]
    id: RequestId | None
    result: Any


class _RpcError(msgspec.Struct):
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
    return _encoder.encode(success_object(framing, request_id, payload)) + b"\n"


def encode_error(
    framing: Framing, request_id: RequestId | None, kind: ErrorKind, message: str
) -> bytes:
    """One framed error line."""
    return _encoder.encode(error_object(framing, request_id, kind, message)) + b"\n"


def encode_batch(answers: list[msgspec.Struct]) -> bytes:
    """One framed JSON-RPC batch answer."""
    return _encoder.encode(answers) + b"\n"


def encode_message(obj: Any) -> bytes:
    """Any JSON value as one framed line (requests hookd itself sends)."""
    return _encoder.encode(obj) + b"\n"


# -------------------------------------------------------------------------- framing

_ID_IN_HEAD: Final = re.compile(rb'"(request_id|id)"\s*:\s*("(?:[^"\\]|\\.){1,256}"|-?\d{1,18})')


def recover_id(head: bytes) -> tuple[Framing, RequestId] | None:
    """Best effort: the request id named near the start of a discarded line."""
    match = _ID_IN_HEAD.search(head)
    if match is None:
        return None
    framing: Framing = "control" if match.group(1) == b"request_id" else "jsonrpc"
    try:
        value = _any_decoder.decode(match.group(2))
    except _UNREADABLE:
        return None
    if framing == "control" and not isinstance(value, str):
        return None
    return framing, value


class LineFramer:
    """Splits a byte stream on ``\\n``; tolerates ``\\r\\n`` and blank lines.

    A line longer than ``max_line_bytes`` is discarded as it streams in (memory
    stays bounded) and reported once as an :class:`Oversize` with its first
    bytes, so its request can still be answered.
    """

    HEAD_BYTES: Final = 4096

    def __init__(self, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> None:
        if max_line_bytes < 1:
            raise ValueError("max_line_bytes must be positive")
        self.max_line_bytes = max_line_bytes
        self._buf = bytearray()
        self._skipping = 0  # bytes of an oversize line discarded so far
        self._head = b""

    def feed(self, data: bytes) -> Iterator[bytes | Oversize]:
        """Yield the complete lines (stripped, non-blank) that ``data`` finishes."""
        start = 0
        while True:
            end = data.find(b"\n", start)
            if end < 0:
                self._keep(data, start)
                return
            item = self._finish(data, start, end)
            start = end + 1
            if item is not None:
                yield item

    def _finish(self, data: bytes, start: int, end: int) -> bytes | Oversize | None:
        if self._skipping:
            self._grow_head(data, start, end)
            size = self._skipping + end - start
            self._skipping = 0
            return Oversize(size, self._head)
        if self._buf:
            self._buf += data[start:end]
            line = bytes(self._buf)
            self._buf.clear()
        else:
            line = data[start:end]
        if len(line) > self.max_line_bytes:
            return Oversize(len(line), line[: self.HEAD_BYTES])
        line = line.strip()
        return line or None

    def _keep(self, data: bytes, start: int) -> None:
        if self._skipping:
            self._grow_head(data, start, len(data))
            self._skipping += len(data) - start
            return
        self._buf += data[start:]
        if len(self._buf) > self.max_line_bytes:
            self._head = bytes(self._buf[: self.HEAD_BYTES])
            self._skipping = len(self._buf)
            self._buf.clear()

    def _grow_head(self, data: bytes, start: int, end: int) -> None:
        missing = self.HEAD_BYTES - len(self._head)
        if missing > 0:
            self._head += data[start : min(end, start + missing)]

    @property
    def pending_bytes(self) -> int:
        """Bytes of an unfinished line held in memory."""
        return len(self._buf)

    def close(self) -> bytes | Oversize | None:
        """At EOF: the last line if it had no newline."""
        if self._skipping:
            size, self._skipping = self._skipping, 0
            return Oversize(size, self._head)
        line = bytes(self._buf).strip()
        self._buf.clear()
        return line or None
