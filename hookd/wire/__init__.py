"""The sans-IO codec: bytes in, typed messages out, and answers back to bytes.

Imports only the standard library and msgspec. Two framings share one model:

* the control protocol (``control_request`` / ``control_response`` /
  ``control_cancel_request``), whose requests carry a ``subtype``;
* JSON-RPC 2.0, whose requests carry the same names as ``method``.

:func:`classify` reads any message of either framing leniently (request,
cancel or response; id, name, body, payload or error), for the tools that
watch, record and replay traffic.
"""

from hookd.wire.classify import Classified, classify, with_body, with_payload
from hookd.wire.decode import decode_line, error_path
from hookd.wire.encode import (
    encode_batch,
    encode_initialize,
    encode_message,
    encode_request,
    encode_success,
    error_object,
    success_object,
)
from hookd.wire.errors import ErrorKind
from hookd.wire.framing import DEFAULT_MAX_LINE_BYTES, READ_SIZE, LineFramer, recover_id
from hookd.wire.messages import (
    RPC_CANCEL_METHOD,
    RPC_METHODS,
    SUBTYPES,
    Body,
    Call,
    Cancel,
    CanUseTool,
    Framing,
    HookCallback,
    HookDispatch,
    Initialize,
    Invalid,
    Message,
    Oversize,
    Passthrough,
    RequestId,
)

__all__ = [
    "DEFAULT_MAX_LINE_BYTES",
    "READ_SIZE",
    "RPC_CANCEL_METHOD",
    "RPC_METHODS",
    "SUBTYPES",
    "Body",
    "Call",
    "CanUseTool",
    "Cancel",
    "Classified",
    "ErrorKind",
    "Framing",
    "HookCallback",
    "HookDispatch",
    "Initialize",
    "Invalid",
    "LineFramer",
    "Message",
    "Oversize",
    "Passthrough",
    "RequestId",
    "classify",
    "decode_line",
    "encode_batch",
    "encode_initialize",
    "encode_message",
    "encode_request",
    "encode_success",
    "error_object",
    "error_path",
    "recover_id",
    "success_object",
    "with_body",
    "with_payload",
]
