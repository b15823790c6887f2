"""What one hook POST is answered: hookd's server-side dispatch, mapped onto HTTP.

The CLI reads only 2xx answers, so hookd decides every hook failure itself:
under ``block`` the failing hook's blocking output is merged like any other
(a deny, a block); under ``continue`` the answer is the merge of the other
hooks plus a ``systemMessage`` naming the failed hook, which the user sees and
the model does not. A status other than 200 means hookd could not answer at
all (bad body, no registry).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Final

import msgspec
import structlog

from hookd import logs as hookd_log
from hookd.engine.handler import Handler, HookCall
from hookd.engine.stats import Stats
from hookd.engine.verdict import ProblemKind, Verdict
from hookd.events.validation import validate_output
from hookd.serve.http.codec import decode_body
from hookd.serve.http.holder import RegistryHolder

__all__ = ["HookAnswer", "HttpAnswers"]

log = structlog.get_logger("hookd.http")

_encoder: Final = msgspec.json.Encoder()
#: The status of a call hookd could not run at all.
_STATUS: Final[dict[ProblemKind, int]] = {
    "invalid_input": 400,
    "unknown_callback": 400,
    "unavailable": 503,
}


@dataclass(frozen=True, slots=True)
class HookAnswer:
    """The status and JSON body for one POST, and its outcome for the log."""

    status: int
    body: bytes
    outcome: str


def _error(status: int, outcome: str, message: str) -> HookAnswer:
    return HookAnswer(status, _encoder.encode({"error": message}), outcome)


class HttpAnswers:
    """The HTTP adapter: hook POSTs into the request handler, verdicts into HTTP answers."""

    def __init__(self, holder: RegistryHolder, *, validate: bool = True) -> None:
        self.holder = holder
        self.handler = Handler(lambda: holder.current, validate=validate)
        holder.on_swap.append(self.handler.stats.rekey)
        self._count = 0

    @property
    def stats(self) -> Stats:
        """The handler's counters (``GET /status``)."""
        return self.handler.stats

    async def post(self, url_event: str | None, body: bytes) -> HookAnswer:
        """Answer one hook POST whose body is ``body``; logs one request line."""
        arrived, started = time.monotonic(), time.perf_counter()
        self._count += 1
        request_id = f"http-{self._count}"
        event: str | None = url_event
        try:
            parsed = self._parse(url_event, body)
            if isinstance(parsed, HookAnswer):
                answer = parsed
            else:
                event, input_data = parsed
                call = HookCall(
                    event,
                    input_data,
                    _str_or_none(input_data.get("tool_use_id")),
                    request_id,
                    arrived,
                    ask_permission=True,  # the CLI never sends can_use_tool over HTTP
                )
                verdict = await self.handler.handle(call)
                assert verdict is not None  # no scope: never withdrawn
                note = self.holder.reload_note(input_data.get("session_id"))
                answer = self._answer(request_id, verdict, note)
        except Exception as exc:  # a fault in hookd itself: answer it, keep serving
            log.exception("internal.error", request_id=request_id)
            answer = _error(500, "internal_error", f"internal error: {type(exc).__name__}")
        self.stats.requests += 1
        elapsed_ms = round((time.perf_counter() - started) * 1000, 3)
        hookd_log.request_line(
            request_id, None, event=event, method="http", outcome=answer.outcome,
            elapsed_ms=elapsed_ms,
        )  # fmt: skip
        return answer

    def _parse(self, url_event: str | None, body: bytes) -> tuple[str, dict[str, Any]] | HookAnswer:
        input_data = decode_body(body)
        if isinstance(input_data, str):
            return _error(400, "invalid", input_data)
        event = input_data.get("hook_event_name")
        if not isinstance(event, str) or not event:
            return _error(400, "invalid", "the body has no hook_event_name")
        if url_event is not None and url_event != event:
            message = f"the URL names {url_event} but the body's hook_event_name is {event}"
            return _error(400, "invalid", message)
        return event, input_data

    def _answer(self, request_id: str, verdict: Verdict, note: str | None) -> HookAnswer:
        """The verdict as an HTTP answer: the merged output with a note per failed hook,
        and ``note`` (a failed reload) for the user."""
        problem = verdict.problem
        if problem is not None:
            return _error(_STATUS[problem.kind], verdict.outcome, problem.message)
        output = verdict.with_notes()
        if note is not None:
            said = output.get("systemMessage")
            output = {
                **output,
                "systemMessage": f"{said}\n{note}" if isinstance(said, str) else note,
            }
        if self.handler.validate:
            invalid = validate_output(verdict.event, output)
            if invalid is not None:
                log.error(
                    "http.invalid_merge", request_id=request_id, _event=verdict.event, error=invalid
                )
                return _error(500, "internal_error", f"hookd merged an invalid output: {invalid}")
        return HookAnswer(200, _encoder.encode(output), verdict.outcome)


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None
