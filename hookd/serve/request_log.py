"""The one ``request.completed`` log line per call, written by an observer of the kernel.

Every entrance adds :class:`RequestLines` to its kernel: the line names the call's
entrance (``method``), its event and the verdict's outcome, the same word for the same
verdict wherever it came from.
"""

from __future__ import annotations

from hookd.engine.observers import Finished
from hookd.logs import request_line

__all__ = ["RequestLines"]


class RequestLines:
    """Logs each finished call (:func:`hookd.logs.request_line`: cheap on the hot path)."""

    def finished(self, done: Finished) -> None:
        call, verdict = done.call, done.verdict
        ran = verdict.ran
        if len(ran) == 1 and verdict.problem is None and not verdict.conflicts:
            outcome = ran[0].answer.outcome  # one hook's call: the usual case
        else:
            outcome = verdict.outcome
        request_line(
            call.request_id,
            call.callback_id,
            verdict.event,
            call.via,
            outcome,
            elapsed_ms=done.elapsed_ms,
        )
