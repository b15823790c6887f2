"""Answers onto the wire: one line each, or gathered into a JSON-RPC batch; the request log."""

from __future__ import annotations

import time

import msgspec

from hookd import logs as hookd_log
from hookd import wire
from hookd.core.policy import Answer
from hookd.serve.flight import Batch
from hookd.serve.handlers import Handlers
from hookd.serve.writer import Writer

__all__ = ["Replies"]

_UNENCODABLE = (TypeError, ValueError, OverflowError, RecursionError)


class Replies:
    """Encodes answers and queues them on the writer; counts them."""

    def __init__(self, writer: Writer, handlers: Handlers) -> None:
        self.writer = writer
        self.handlers = handlers
        self.answered = 0

    def finish(
        self,
        framing: wire.Framing,
        request_id: wire.RequestId | None,
        batch: Batch | None,
        answer: Answer,
        *,
        started: float | None = None,
        call: wire.Call | None = None,
    ) -> None:
        """Send ``answer`` (or keep it for its batch); log the request when timed."""
        if batch is None:
            self.writer.send_line(self._encode_line(framing, request_id, answer, call))
        else:
            self.batch_item_done(batch, self._encode_answer(framing, request_id, answer, call))
        self.answered += 1
        if call is not None and started is not None:
            _log_completed(call, answer, started)

    def batch_item_done(self, batch: Batch | None, obj: msgspec.Struct | None) -> None:
        """One member of ``batch`` is done (``obj`` its answer, if any); send the batch last."""
        if batch is None:
            return
        if obj is not None:
            batch.answers.append(obj)
        batch.pending -= 1
        if batch.pending == 0 and batch.answers:
            self.writer.send_line(wire.encode_batch(batch.answers))

    def _encode_answer(
        self,
        framing: wire.Framing,
        request_id: wire.RequestId | None,
        answer: Answer,
        call: wire.Call | None,
    ) -> msgspec.Struct:
        if answer.error_kind is not None:
            return wire.error_object(framing, request_id, answer.error_kind, answer.message)
        try:
            raw = msgspec.Raw(msgspec.json.encode(answer.payload))
        except _UNENCODABLE as exc:
            body = call.body if call is not None else None
            callback_id = body.callback_id if isinstance(body, wire.HookCallback) else None
            answer2 = self.handlers.handler.unencodable(callback_id, exc)
            if answer2.error_kind is not None:
                return wire.error_object(framing, request_id, answer2.error_kind, answer2.message)
            raw = msgspec.Raw(msgspec.json.encode(answer2.payload))
        return wire.success_object(framing, request_id, raw)

    def _encode_line(
        self,
        framing: wire.Framing,
        request_id: wire.RequestId | None,
        answer: Answer,
        call: wire.Call | None,
    ) -> bytes:
        """One answer line, in one encode (the batch path checks the payload on its own)."""
        if answer.error_kind is None:
            try:
                return wire.encode_success(framing, request_id, answer.payload)
            except _UNENCODABLE:
                pass  # the slow path below names the problem
        return wire.encode_message(self._encode_answer(framing, request_id, answer, call))


#: The protocol's name of each request body type (``__struct_config__`` is made on each use).
_METHODS: dict[type, str] = {}


def _method(body: wire.Body) -> str:
    method = _METHODS.get(type(body))
    if method is None:
        method = _METHODS[type(body)] = str(body.__struct_config__.tag)
    return method


def _log_completed(call: wire.Call, answer: Answer, started: float) -> None:
    body = call.body
    hookd_log.request_line(
        call.request_id,
        getattr(body, "callback_id", None),
        event=answer.event,
        method=_method(body),
        outcome=answer.outcome,
        elapsed_ms=round((time.perf_counter() - started) * 1_000_000) / 1000,  # to the microsecond
    )
