"""What each request is answered: hook callbacks, permission calls, dispatches, ``initialize``."""

from __future__ import annotations

from typing import Any

import structlog
import trio

from hookd import wire
from hookd.core.context import HookContext
from hookd.core.policy import Answer, Outcome, resolve
from hookd.core.registry import Registration, Registry
from hookd.engine.executor import Executor
from hookd.events import EVENTS
from hookd.events.validation import check_input
from hookd.serve.early import initialize_payload
from hookd.wire.errors import UNKNOWN_CALLBACK_TEXT, ErrorKind

__all__ = ["Handlers"]

log = structlog.get_logger("hookd.server")


class Handlers:
    """Turns one call into its :class:`Answer`; knows nothing of framing or writing."""

    def __init__(self, registry: Registry, executor: Executor, *, validate: bool) -> None:
        self.registry = registry
        self.executor = executor
        self.validate = validate
        self._warned_events: set[str] = set()

    async def answer(
        self, call: wire.Call, scope: trio.CancelScope, arrived: float | None = None
    ) -> Answer | None:
        """The answer to ``call``, run under ``scope``; None when it was cancelled.

        ``arrived`` (``time.monotonic()``) is when the request was read: a hook's
        deadline runs from then, however long it waited behind other work.
        """
        body = call.body
        if isinstance(body, wire.HookCallback):  # the hot path: the executor enters the scope
            return await self.hook_callback(call.request_id, body, scope, arrived)
        with scope:
            return await self._answer_other(call)
        return None  # cancelled

    async def _answer_other(self, call: wire.Call) -> Answer:
        body = call.body
        match body:
            case wire.Initialize():
                return Answer("ok", payload=self.initialize_payload())
            case wire.CanUseTool():
                from hookd.engine.permission import answer_can_use_tool

                return await answer_can_use_tool(self.registry, call.request_id, body)
            case wire.HookDispatch():
                from hookd.engine.dispatch import answer_dispatch

                return await answer_dispatch(self.registry, self.executor, call.request_id, body)
        raise AssertionError(f"unhandled body {body!r}")  # pragma: no cover

    def initialize_payload(self) -> dict[str, Any]:
        """The ``initialize`` answer: the hooks map plus hookd's name and version."""
        return initialize_payload(self.registry)

    async def hook_callback(
        self,
        request_id: wire.RequestId | None,
        body: wire.HookCallback,
        scope: trio.CancelScope,
        arrived: float | None = None,
    ) -> Answer:
        reg = self.registry.get(body.callback_id)
        if reg is None:
            return Answer(
                "unknown_callback",
                error_kind=ErrorKind.UNKNOWN_CALLBACK,
                message=UNKNOWN_CALLBACK_TEXT.format(callback_id=body.callback_id),
            )
        problem = self.check_input(reg, body.input)
        if problem is not None:
            return invalid(problem)
        ctx = self.context(request_id, reg, body, arrived)
        outcome = await self.executor.run(
            reg, body.input, body.tool_use_id, ctx, scope, arrived=arrived
        )
        return resolve(reg, outcome)

    def context(
        self,
        request_id: wire.RequestId | None,
        reg: Registration,
        body: wire.HookCallback,
        arrived: float | None = None,
    ) -> HookContext:
        """The context one hook call sees; its deadline runs from ``arrived`` (R-128)."""
        return HookContext(
            request_id=request_id,
            callback_id=reg.callback_id,
            event=reg.event,
            tool_use_id=body.tool_use_id,
            timeout_s=reg.timeout_s,
            state=self.registry.session_state(body.input.get("session_id")),
            since=arrived,
        )

    def check_input(self, reg: Registration, input_data: dict[str, Any]) -> str | None:
        """What is wrong with a hook's input, or None (always None with validation off)."""
        if not self.validate:
            return None
        if reg.event not in EVENTS and reg.event not in self._warned_events:
            self._warned_events.add(reg.event)
            log.warning("event.unknown", _event=reg.event, note="input passed through unchecked")
        return check_input(reg.event, input_data)

    def end_session(self, call: wire.Call) -> None:
        """Free the state of the session a SessionEnd call named."""
        body = call.body
        if isinstance(body, wire.HookCallback | wire.HookDispatch):
            session_id = body.input.get("session_id")
            self.registry.end_session(session_id if isinstance(session_id, str) else None)

    def unencodable(self, call: wire.Call | None, exc: Exception) -> Answer:
        """The answer in place of an output that does not encode as JSON."""
        message = f"output is not JSON-serialisable: {exc}"
        body = call.body if call is not None else None
        reg = self.registry.get(body.callback_id) if isinstance(body, wire.HookCallback) else None
        if reg is None:
            return Answer("invalid_output", error_kind=ErrorKind.INTERNAL_ERROR, message=message)
        return resolve(reg, Outcome("invalid_output", message=message))


def invalid(message: str) -> Answer:
    """An ``invalid request`` answer."""
    return Answer("invalid", error_kind=ErrorKind.INVALID_REQUEST, message=message)


def internal_error(message: str) -> Answer:
    """The answer to a request that met a fault in hookd itself."""
    return Answer("internal_error", error_kind=ErrorKind.INTERNAL_ERROR, message=message)
