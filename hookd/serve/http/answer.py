"""What one hook POST is answered: the kernel's verdict, mapped onto HTTP.

The CLI reads only 2xx answers, so hookd decides every hook failure itself:
under ``block`` the failing hook's blocking output is merged like any other
(a deny, a block); under ``continue`` the answer is the merge of the other
hooks plus a ``systemMessage`` naming the failed hook, which the user sees and
the model does not. A status other than 200 means hookd could not answer at
all (a bad body, no registry): the status of its problem
(:data:`hookd.engine.verdict.PROBLEMS`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Final

import msgspec

from hookd.engine.call import HookCall
from hookd.engine.kernel import Kernel
from hookd.engine.layers import SessionNotes
from hookd.engine.stats import Stats
from hookd.engine.verdict import Problem, Verdict
from hookd.serve.http.codec import decode_body
from hookd.serve.http.holder import RegistryHolder
from hookd.serve.request_log import RequestLines

__all__ = ["HttpAnswers", "HttpReply", "error_reply"]

_encoder: Final = msgspec.json.Encoder()


@dataclass(frozen=True, slots=True)
class HttpReply:
    """The status, headers and JSON body for one POST, and its outcome for the log."""

    status: int
    body: bytes
    outcome: str
    headers: tuple[tuple[bytes, bytes], ...] = ()


def error_reply(status: int, outcome: str, message: str) -> HttpReply:
    """A JSON ``{"error": message}`` answer."""
    return HttpReply(status, _encoder.encode({"error": message}), outcome)


class HttpAnswers:
    """The HTTP adapter: hook POSTs into the kernel, verdicts into HTTP answers.

    Its kernel also answers the agents' route (:mod:`hookd.serve.http.agent_answer`):
    one kernel per daemon, with the daemon's layer (the session's notes) and the
    request log line."""

    def __init__(self, holder: RegistryHolder, *, validate: bool = True) -> None:
        self.holder = holder
        self.kernel = Kernel(
            lambda: holder.current,
            validate=validate,
            layers=[SessionNotes(holder)],
            observers=[RequestLines()],
        )
        holder.on_swap.append(self.kernel.stats.rekey)
        self._count = 0

    @property
    def stats(self) -> Stats:
        """The kernel's counters (``GET /status``)."""
        return self.kernel.stats

    async def post(self, url_event: str | None, body: bytes) -> HttpReply:
        """Answer one hook POST whose body is ``body``."""
        arrived = time.monotonic()
        self._count += 1
        request_id = f"http-{self._count}"
        parsed = _parse(url_event, body)
        if isinstance(parsed, str):
            call = HookCall(url_event or "", {}, request_id=request_id, via="http")
            return reply(self.kernel.refuse(call, Problem("invalid_input", parsed)))
        event, input_data = parsed
        tool_use_id = input_data.get("tool_use_id")
        call = HookCall(
            event,
            input_data,
            tool_use_id if isinstance(tool_use_id, str) else None,
            request_id,
            arrived,
            ask_permission=True,  # the CLI never sends can_use_tool over HTTP
            via="http",
        )
        verdict = await self.kernel.handle(call)
        assert verdict is not None  # no scope: never withdrawn
        return reply(verdict)


def reply(verdict: Verdict) -> HttpReply:
    """The verdict as an HTTP answer: the merged output with a note per failed hook."""
    problem = verdict.problem
    if problem is not None:
        return error_reply(problem.wire.status, verdict.outcome, problem.message)
    return HttpReply(200, _encoder.encode(verdict.with_notes()), verdict.outcome)


def _parse(url_event: str | None, body: bytes) -> tuple[str, dict[str, Any]] | str:
    """The body's event and input, or what is wrong with it."""
    input_data = decode_body(body)
    if isinstance(input_data, str):
        return input_data
    event = input_data.get("hook_event_name")
    if not isinstance(event, str) or not event:
        return "the body has no hook_event_name"
    if url_event is not None and url_event != event:
        return f"the URL names {url_event} but the body's hook_event_name is {event}"
    return event, input_data
