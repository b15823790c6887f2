"""The stdio adapter: control-protocol calls into the request handler, verdicts into answers.

Nothing here runs a hook or applies a policy: :class:`hookd.engine.handler.Handler`
does. This module only decodes a ``hook_callback``, ``hooks/dispatch`` or
``can_use_tool`` body into the handler's call and turns its verdict into the
:class:`~hookd.core.policy.Answer` the reply encodes.
"""

from __future__ import annotations

from typing import Any, Final

import trio

from hookd import wire
from hookd.core.policy import Answer
from hookd.engine.handler import Handler, HookCall, PermissionCall
from hookd.engine.verdict import ProblemKind, Verdict
from hookd.serve.early import initialize_payload
from hookd.wire.errors import ErrorKind

__all__ = [
    "Handlers",
    "callback_answer",
    "dispatch_answer",
    "hook_call",
    "internal_error",
    "invalid",
]

#: How a call-level problem is answered on the stdio wire.
_CALLBACK_ERRORS: Final[dict[ProblemKind, ErrorKind]] = {
    "invalid_input": ErrorKind.INVALID_REQUEST,
    "unknown_callback": ErrorKind.UNKNOWN_CALLBACK,
    "unavailable": ErrorKind.INTERNAL_ERROR,
}
_DISPATCH_ERRORS: Final[dict[ProblemKind, ErrorKind]] = {
    **_CALLBACK_ERRORS,
    "invalid_input": ErrorKind.INVALID_PARAMS,
}
_OUTCOMES: Final[dict[ProblemKind, str]] = {
    "invalid_input": "invalid",
    "unknown_callback": "unknown_callback",
    "unavailable": "unavailable",
}


class Handlers:
    """Answers one decoded stdio call through the handler; knows nothing of framing."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler

    async def answer(
        self, call: wire.Call, scope: trio.CancelScope, arrived: float | None = None
    ) -> Answer | None:
        """The answer to ``call``, run under ``scope``; None when it was withdrawn.

        ``arrived`` (``time.monotonic()``) is when the request was read: every
        deadline runs from then, however long it waited behind other work.
        """
        body = call.body
        match body:
            case wire.HookCallback():
                verdict = await self.handler.handle(hook_call(call, body, arrived or 0.0), scope)
                return None if verdict is None else callback_answer(verdict)
            case wire.HookDispatch():
                hook = HookCall(
                    body.event, body.input, _tool_use_id(body), call.request_id, arrived or 0.0
                )
                verdict = await self.handler.handle(hook, scope)
                return None if verdict is None else dispatch_answer(verdict)
            case wire.CanUseTool():
                return await self.handler.permission(
                    _permission_call(call, body, arrived or 0.0), scope
                )
            case wire.Initialize():
                return Answer("ok", payload=self.initialize_payload(), event="initialize")
        raise AssertionError(f"unhandled body {body!r}")  # pragma: no cover

    def initialize_payload(self) -> dict[str, Any]:
        """The ``initialize`` answer: the hooks map plus hookd's name and version."""
        registry = self.handler.registry
        assert registry is not None
        return initialize_payload(registry)


def hook_call(call: wire.Call, body: wire.HookCallback, arrived: float) -> HookCall:
    """A ``hook_callback`` as the handler's call (the event is the named hook's)."""
    event = body.input.get("hook_event_name")
    return HookCall(
        event if isinstance(event, str) else "",
        body.input,
        body.tool_use_id,
        call.request_id,
        arrived,
        body.callback_id,
    )


def callback_answer(verdict: Verdict) -> Answer:
    """A ``hook_callback``'s answer: the one hook's answer, or the problem as an error."""
    problem = verdict.problem
    if problem is not None:
        kind = _CALLBACK_ERRORS[problem.kind]
        return Answer(_OUTCOMES[problem.kind], error_kind=kind, message=problem.message)
    return verdict.ran[0].answer


def dispatch_answer(verdict: Verdict) -> Answer:
    """A ``hooks/dispatch`` answer: the merged output with every hook's record."""
    problem = verdict.problem
    if problem is not None:
        kind = _DISPATCH_ERRORS[problem.kind]
        return Answer(
            _OUTCOMES[problem.kind], error_kind=kind, message=problem.message, event=verdict.event
        )
    outcome = "conflict" if verdict.conflicts else "ok"
    return Answer(outcome, payload=verdict.to_wire(), event=verdict.event)


def _tool_use_id(body: wire.HookDispatch) -> str | None:
    if body.tool_use_id is not None:
        return body.tool_use_id
    value = body.input.get("tool_use_id")
    return value if isinstance(value, str) else None


def _permission_call(call: wire.Call, body: wire.CanUseTool, arrived: float) -> PermissionCall:
    return PermissionCall(
        body.tool_name,
        body.input,
        body.tool_use_id,
        call.request_id,
        arrived,
        body.permission_suggestions,
        body.blocked_path,
        body.decision_reason,
        body.agent_id,
    )


def invalid(message: str) -> Answer:
    """An ``invalid request`` answer."""
    return Answer("invalid", error_kind=ErrorKind.INVALID_REQUEST, message=message)


def internal_error(message: str) -> Answer:
    """The answer to a request that met a fault in hookd itself."""
    return Answer("internal_error", error_kind=ErrorKind.INTERNAL_ERROR, message=message)
