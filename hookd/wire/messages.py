"""The protocol's messages: request bodies and what a decoded line is."""

from __future__ import annotations

from typing import Any, Final, Literal

import msgspec

from hookd.wire.errors import ErrorKind

__all__ = [
    "Body",
    "Call",
    "CanUseTool",
    "Cancel",
    "Framing",
    "HookCallback",
    "HookDispatch",
    "Initialize",
    "Invalid",
    "Message",
    "Oversize",
    "Passthrough",
    "RequestId",
]

Framing = Literal["control", "jsonrpc"]
RequestId = str | int


# --------------------------------------------------------------------------- bodies
# Decoded from JSON, a tree: never part of a cycle, so the ones made for every request
# are left untracked by the garbage collector (``gc=False``).


class HookCallback(msgspec.Struct, tag="hook_callback", tag_field="subtype", gc=False):
    """Run one registered callback on a hook input."""

    callback_id: str
    input: dict[str, Any]
    tool_use_id: str | None = None


class Initialize(msgspec.Struct, tag="initialize", tag_field="subtype", gc=False):
    """Ask for the registered hooks (the CLI may send its own ``hooks``; ignored)."""

    hooks: Any = None


class CanUseTool(msgspec.Struct, tag="can_use_tool", tag_field="subtype", gc=False):
    """A permission question for a tool call."""

    tool_name: str
    input: dict[str, Any]
    tool_use_id: str | None = None
    permission_suggestions: list[Any] | None = None
    blocked_path: str | None = None
    decision_reason: str | None = None
    agent_id: str | None = None


class HookDispatch(msgspec.Struct, tag="hook_dispatch", tag_field="subtype", gc=False):
    """One call per event: hookd matches, runs and merges the hooks itself."""

    event: str
    input: dict[str, Any]
    tool_use_id: str | None = None


Body = HookCallback | Initialize | CanUseTool | HookDispatch

#: JSON-RPC method name -> body type. ``hooks/dispatch`` is the dispatch method's
#: JSON-RPC name; ``hook_dispatch`` its control-protocol subtype.
RPC_METHODS: Final[dict[str, type[Body]]] = {
    "initialize": Initialize,
    "hook_callback": HookCallback,
    "can_use_tool": CanUseTool,
    "hooks/dispatch": HookDispatch,
    "hook_dispatch": HookDispatch,
}
SUBTYPES: Final = frozenset({"initialize", "hook_callback", "can_use_tool", "hook_dispatch"})
RPC_CANCEL_METHOD: Final = "$/cancelRequest"


# ------------------------------------------------------------------------- messages


class Call(msgspec.Struct, frozen=True, gc=False):
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
