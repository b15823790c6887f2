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

from hookd.core.registry import Registry
from hookd.engine.dispatch import DispatchResult, HookRecord, dispatch
from hookd.engine.executor import Executor
from hookd.events.validation import check_input, validate_output
from hookd.serve import log as hookd_log
from hookd.serve.http.codec import decode_body
from hookd.serve.http.holder import RegistryHolder
from hookd.serve.http.stats import Stats

__all__ = ["HookAnswer", "Hooks"]

log = structlog.get_logger("hookd.http")

_encoder: Final = msgspec.json.Encoder()
_FAILED: Final = frozenset({"exception", "timeout", "invalid_output"})
_WORDS: Final = {
    "exception": "failed",
    "timeout": "timed out",
    "invalid_output": "returned an invalid output",
}


@dataclass(frozen=True, slots=True)
class HookAnswer:
    """The status and JSON body for one POST, and its outcome for the log."""

    status: int
    body: bytes
    outcome: str


def _error(status: int, outcome: str, message: str) -> HookAnswer:
    return HookAnswer(status, _encoder.encode({"error": message}), outcome)


class Hooks:
    """Answers hook POSTs from the holder's registry with one executor and one set of stats."""

    def __init__(self, holder: RegistryHolder, *, validate: bool = True) -> None:
        self.holder = holder
        self.executor = Executor(validate=validate)
        self.stats = Stats()
        self._count = 0

    async def post(self, url_event: str | None, body: bytes) -> HookAnswer:
        """Answer one hook POST whose body is ``body``; logs one request line."""
        started = time.perf_counter()
        self._count += 1
        request_id = f"http-{self._count}"
        event: str | None = url_event
        try:
            parsed = self._parse(url_event, body)
            if isinstance(parsed, HookAnswer):
                answer = parsed
            else:
                event, input_data = parsed
                answer = await self._dispatch(request_id, event, input_data)
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

    async def _dispatch(
        self, request_id: str, event: str, input_data: dict[str, Any]
    ) -> HookAnswer:
        registry = self.holder.current
        if registry is None:
            return _error(503, "unavailable", "no hooks loaded (the module failed to load)")
        if self.executor.validate:
            problem = check_input(event, input_data)
            if problem is not None:
                return _error(400, "invalid", problem)
        result = await dispatch(
            registry, event, input_data, executor=self.executor, request_id=request_id
        )
        for record in result.hooks:
            self.stats.hook(record.callback_id, record.outcome, record.elapsed_ms)
        if event == "SessionEnd":  # the session is over: free its state
            registry.state.pop(_session(input_data), None)
        output = _output(registry, result)
        problem = validate_output(event, output) if self.executor.validate else None
        if problem is not None:
            log.error("http.invalid_merge", request_id=request_id, _event=event, error=problem)
            return _error(500, "internal_error", f"hookd merged an invalid output: {problem}")
        return HookAnswer(200, _encoder.encode(output), _outcome(result))


def _output(registry: Registry, result: DispatchResult) -> dict[str, Any]:
    """The merged output, plus a ``systemMessage`` naming each hook that failed under continue."""
    failed = [h for h in result.hooks if h.outcome in _FAILED]
    if not failed:
        return result.merged
    notes = [_note(registry, h) for h in failed]
    output = dict(result.merged)
    if isinstance(output.get("systemMessage"), str):
        notes.insert(0, output["systemMessage"])
    output["systemMessage"] = "\n".join(notes)
    return output


def _note(registry: Registry, record: HookRecord) -> str:
    reg = registry.get(record.callback_id)
    name = f"{record.callback_id} ({reg.name})" if reg is not None else record.callback_id
    text = f"hookd: hook {name} {_WORDS[record.outcome]}"
    return f"{text}: {record.error}" if record.error else text


def _outcome(result: DispatchResult) -> str:
    if result.conflicts:
        return "conflict"
    for record in result.hooks:
        if record.outcome != "ok":
            return record.outcome
    return "ok"


def _session(input_data: dict[str, Any]) -> str:
    value = input_data.get("session_id")
    return value if isinstance(value, str) else ""
