"""Answers onto the wire: one line each, or gathered into a JSON-RPC batch."""

from __future__ import annotations

import msgspec

from hookd import wire
from hookd.core.policy import Answer
from hookd.serve.flight import Batch
from hookd.serve.writer import Writer
from hookd.wire.errors import ErrorKind

__all__ = ["Replies"]

_UNENCODABLE = (TypeError, ValueError, OverflowError, RecursionError)


class Replies:
    """Encodes answers and queues them on the writer; counts them."""

    def __init__(self, writer: Writer) -> None:
        self.writer = writer
        self.answered = 0

    def finish(
        self,
        framing: wire.Framing,
        request_id: wire.RequestId | None,
        batch: Batch | None,
        answer: Answer,
    ) -> None:
        """Send ``answer`` (or keep it for its batch)."""
        if batch is None:  # one line, in one encode
            if answer.error_kind is None:
                try:
                    line = wire.encode_success(framing, request_id, answer.payload)
                except _UNENCODABLE:
                    line = wire.encode_message(_unencodable(framing, request_id))
            else:
                line = wire.encode_message(_encode_answer(framing, request_id, answer))
            self.writer.send_line(line)
        else:
            self.batch_item_done(batch, _encode_answer(framing, request_id, answer))
        self.answered += 1

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
    framing: wire.Framing, request_id: wire.RequestId | None, answer: Answer
) -> msgspec.Struct:
    if answer.error_kind is None:
        try:
            raw = msgspec.Raw(msgspec.json.encode(answer.payload))
        except _UNENCODABLE:
            return _unencodable(framing, request_id)
        return wire.success_object(framing, request_id, raw)
    return wire.error_object(framing, request_id, answer.error_kind, answer.message)


def _unencodable(framing: wire.Framing, request_id: wire.RequestId | None) -> msgspec.Struct:
    """Never expected: every output is encoded once where it is produced (the executor)."""
    message = "internal error: the answer does not encode as JSON"
    return wire.error_object(framing, request_id, ErrorKind.INTERNAL_ERROR, message)
