"""The stdio adapter: control-protocol calls into the kernel, verdicts into answers.

Nothing here runs a hook or applies a policy: :class:`hookd.engine.kernel.Kernel`
does. This module only decodes a ``hook_callback``, ``hooks/dispatch`` or
``can_use_tool`` body into the kernel's call and turns its verdict into the
:class:`~hookd.core.policy.Answer` the reply encodes (a problem into its error of
:data:`hookd.engine.verdict.PROBLEMS`).
"""

from __future__ import annotations

from typing import Any

import trio

from hookd import wire
from hookd.core.policy import Answer
from hookd.engine.call import HookCall, PermissionCall
from hookd.engine.kernel import Kernel
from hookd.engine.verdict import Verdict
from hookd.serve.early import initialize_payload
from hookd.wire.errors import ErrorKind

__all__ = [
    "StdioCalls",
    "callback_answer",
    "dispatch_answer",
    "hook_call",
    "invalid",
]


class StdioCalls:
    """Answers one decoded stdio call through the kernel; knows nothing of framing."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel

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
                verdict = await self.kernel.handle(hook_call(call, body, arrived or 0.0), scope)
                return None if verdict is None else callback_answer(verdict)
            case wire.HookDispatch():
                hook = HookCall(
                    body.event, body.input, _tool_use_id(body), call.request_id, arrived or 0.0,
                    via="hook_dispatch",
                )  # fmt: skip
                verdict = await self.kernel.handle(hook, scope)
                return None if verdict is None else dispatch_answer(verdict)
            case wire.CanUseTool():
                question = _permission_call(call, body, arrived or 0.0)
                verdict = await self.kernel.handle(question, scope)
                return None if verdict is None else callback_answer(verdict)
            case wire.Initialize():
                return Answer("ok", payload=self.initialize_payload(), event="initialize")
        raise AssertionError(f"unhandled body {body!r}")  # pragma: no cover

    def initialize_payload(self) -> dict[str, Any]:
        """The ``initialize`` answer: the hooks map plus hookd's name and version."""
        registry = self.kernel.registry
        assert registry is not None
        return initialize_payload(registry)


def hook_call(call: wire.Call, body: wire.HookCallback, arrived: float) -> HookCall:
    """A ``hook_callback`` as the kernel's call (the event is the named hook's)."""
    event = body.input.get("hook_event_name")
    return HookCall(
        event if isinstance(event, str) else "",
        body.input,
        body.tool_use_id,
        call.request_id,
        arrived,
        body.callback_id,
        "claude",
        False,
        None,
        None,
        "hook_callback",
    )  # positional: the reader's hot path


def callback_answer(verdict: Verdict) -> Answer:
    """A ``hook_callback``'s (or ``can_use_tool``'s) answer: the one hook's answer, or the
    problem as an error."""
    problem = verdict.problem
    if problem is not None:
        said = problem.wire
        return Answer(said.outcome, error_kind=said.callback, message=problem.message)
    return verdict.ran[0].answer


def dispatch_answer(verdict: Verdict) -> Answer:
    """A ``hooks/dispatch`` answer: the merged output with every hook's record."""
    problem = verdict.problem
    if problem is not None:
        said = problem.wire
        return Answer(
            said.outcome, error_kind=said.dispatch, message=problem.message, event=verdict.event
        )
    return Answer(verdict.outcome, payload=verdict.to_wire(), event=verdict.event)


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
    """An ``invalid request`` answer (a message the wire could not decode)."""
    return Answer("invalid", error_kind=ErrorKind.INVALID_REQUEST, message=message)
