"""Decoded messages to work: each call started in a task of its own, cancels, refusals.

The reader hands every message it does not run inline to :class:`Router`, which
starts calls in the request nursery, withdraws cancelled ones, refuses
duplicates and requests over the in-flight limits, and answers invalid ones.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import structlog
import trio

from hookd import wire
from hookd.core.policy import Answer
from hookd.serve.flight import Batch, Flight, InFlight, Key
from hookd.serve.reply import Replies
from hookd.serve.stdio_calls import StdioCalls, invalid
from hookd.wire.errors import ErrorKind

__all__ = ["PassthroughSink", "Router"]

log = structlog.get_logger("hookd.server")

PassthroughSink = Callable[[bytes, wire.Passthrough], None]


class Router:
    """Routes messages to tasks in the request nursery (set once serving starts)."""

    def __init__(self, calls: StdioCalls, replies: Replies, inflight: InFlight) -> None:
        self.calls = calls
        self.replies = replies
        self.inflight = inflight
        self.nursery: trio.Nursery | None = None
        self.on_passthrough: PassthroughSink | None = None
        self.arrived = time.monotonic()  # when the lines being routed were read

    def on_message(
        self, msg: wire.Message, line: bytes, batch: Batch | None, size: int = 0
    ) -> None:
        match msg:
            case wire.Call():
                self._on_call(msg, batch, size or len(line))
            case wire.Cancel():
                self._on_cancel(msg)
            case wire.Invalid():
                self._on_invalid(msg, batch)
            case wire.Passthrough():
                self._on_passthrough(msg, line)

    def on_batch(self, messages: list[wire.Message], size: int) -> None:
        batch = Batch(len(messages))
        for msg in messages:
            self.on_message(msg, b"", batch, max(1, size // len(messages)))

    def on_oversize(self, big: wire.Oversize, limit: int) -> None:
        found = wire.recover_id(big.head)
        log.warning(
            "line.too_long",
            size=big.size,
            max_line_bytes=limit,
            request_id=found[1] if found else None,
        )
        if found is not None:
            text = f"message of {big.size} bytes exceeds the line limit of {limit} bytes"
            self.replies.finish(found[0], found[1], None, invalid(text))

    def refused(self, call: wire.Call, key: Key, batch: Batch | None, size: int) -> bool:
        """Duplicates are ignored, and requests over the in-flight limits refused."""
        refusal = self.inflight.refusal(key, size)
        if refusal is None:
            return False
        self.refuse(call, refusal, batch)
        return True

    def refuse(self, call: wire.Call, refusal: str, batch: Batch | None) -> None:
        """Ignore a duplicate (``refusal`` empty), or answer that a request is over a limit
        (:meth:`InFlight.refusal`)."""
        if not refusal:
            log.warning("request.duplicate", request_id=call.request_id)
            self.replies.batch_item_done(batch, None)
            return
        answer = Answer("overloaded", error_kind=ErrorKind.OVERLOADED, message=refusal)
        self.replies.finish(call.framing, call.request_id, batch, answer)

    def shutdown(self) -> None:
        """Stop every request in flight; none of them is answered."""
        self.inflight.withdraw_all()
        if self.nursery is not None:
            self.nursery.cancel_scope.cancel()

    def _on_call(self, call: wire.Call, batch: Batch | None, size: int) -> None:
        if isinstance(call.body, wire.Initialize):  # cheap: answered inline, never queued
            payload = self.calls.initialize_payload()
            answer = Answer("ok", payload=payload, event="initialize")
            if call.request_id is not None:
                self.replies.finish(call.framing, call.request_id, batch, answer)
            else:
                self.replies.batch_item_done(batch, None)
            return
        assert self.nursery is not None
        if call.request_id is None:  # JSON-RPC notification: run, never answer
            self.nursery.start_soon(self._run_notification, call)
            self.replies.batch_item_done(batch, None)
            return
        key: Key = (call.framing, call.request_id)
        if self.refused(call, key, batch, size):
            return
        flight = Flight(batch)
        flight.size = size
        flight.arrived = self.arrived
        self.inflight.add(key, flight)
        self.nursery.start_soon(self._run_call, call, key, flight)

    def _on_cancel(self, cancel: wire.Cancel) -> None:
        flight = self.inflight.drop((cancel.framing, cancel.request_id))
        if flight is None:
            log.debug("cancel.unknown", request_id=cancel.request_id)
            return
        flight.withdrawn = True
        flight.scope.cancel()
        log.info("request.cancelled", request_id=cancel.request_id, by="peer")
        self.replies.batch_item_done(flight.batch, None)

    def _on_invalid(self, msg: wire.Invalid, batch: Batch | None) -> None:
        log.warning(
            "request.invalid",
            request_id=msg.request_id,
            error=msg.message,
            error_code=msg.kind.error_code,
        )
        if msg.answer and (msg.request_id is not None or msg.framing == "jsonrpc"):
            answer = Answer("invalid", error_kind=msg.kind, message=msg.message)
            self.replies.finish(msg.framing, msg.request_id, batch, answer)
        else:
            self.replies.batch_item_done(batch, None)

    def _on_passthrough(self, msg: wire.Passthrough, line: bytes) -> None:
        if self.on_passthrough is not None:
            self.on_passthrough(line, msg)
        else:
            log.debug("message.skipped", type=msg.type)

    async def _run_call(self, call: wire.Call, key: Key, flight: Flight) -> None:
        answer = await self.calls.answer(call, flight.scope, flight.arrived)
        if flight.withdrawn or answer is None:
            return  # cancelled by the peer or by shutdown: no answer
        self.inflight.drop(key)
        self.replies.finish(call.framing, call.request_id, flight.batch, answer)

    async def _run_notification(self, call: wire.Call) -> None:
        answer = await self.calls.answer(call, trio.CancelScope())
        outcome = answer.outcome if answer is not None else "cancelled"
        log.info("notification.done", method=type(call.body).__name__, outcome=outcome)
