"""``POST /agent/<agent>/<AgentEvent>``: one entrance for every agent CLI's dialect.

The body is the payload the agent gave its command hook on stdin. The
agent's dialect (:mod:`hookd.agents`) decodes it into Claude's vocabulary,
the request handler answers it, and the dialect encodes the verdict into
what the agent's command hook must print and exit with. The answer is built
for a command shim that copies it out without parsing JSON: status 200, the
exit code in the ``x-hookd-exit`` header, and as the body the text for stdout
(exit 0) or for stderr (any other exit). A status other than 200 means the
route itself was wrong (an unknown agent: 404); the shim fails closed on it.

An agent event without a Claude counterpart is answered with exit 0 and no
output (no hook can apply to it). A body that is not a JSON object is a call
hookd could not run: exit 2 with a one-line reason on a blocking event.

While the module has events the agent's hook file does not route (added after the
install), each session of that agent is told once, in the next answer that can carry a
``systemMessage`` in its dialect (:meth:`RegistryHolder.route_note`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Final

import msgspec
import msgspec.structs
import structlog

from hookd import agents
from hookd import logs as hookd_log
from hookd.agents import Dialect, Encoded, Unsupported
from hookd.engine.handler import Handler, HookCall
from hookd.engine.verdict import Problem, Verdict
from hookd.serve.http.codec import decode_body
from hookd.serve.http.holder import RegistryHolder

__all__ = ["EXIT_HEADER", "AgentAnswer", "AgentAnswers"]

log = structlog.get_logger("hookd.http")

EXIT_HEADER: Final = b"x-hookd-exit"
_encoder: Final = msgspec.json.Encoder()


@dataclass(frozen=True, slots=True)
class AgentAnswer:
    """The status, headers and body for one agent POST, and its outcome for the log."""

    status: int
    body: bytes
    outcome: str
    headers: tuple[tuple[bytes, bytes], ...] = ()


def _as_http(encoded: Encoded, outcome: str) -> AgentAnswer:
    body = encoded.stdout if encoded.exit_code == 0 else encoded.stderr.encode()
    return AgentAnswer(200, body, outcome, ((EXIT_HEADER, b"%d" % encoded.exit_code),))


class AgentAnswers:
    """Agent POSTs into the request handler (shared with ``/hook/``), verdicts into exits."""

    def __init__(self, handler: Handler, holder: RegistryHolder | None = None) -> None:
        self.handler = handler
        self.holder = holder
        self._count = 0

    async def post(self, target: str, body: bytes) -> AgentAnswer:
        """Answer one POST to ``/agent/<target>`` (``target`` is ``agent/AgentEvent``)."""
        started = time.perf_counter()
        arrived = time.monotonic()
        self._count += 1
        request_id = f"agent-{self._count}"
        agent, _, agent_event = target.partition("/")
        dialect = agents.DIALECTS.get(agent)
        if dialect is None:
            message = f"unknown agent {agent!r}: expected one of {', '.join(agents.AGENTS)}"
            answer = AgentAnswer(404, _encoder.encode({"error": message}), "invalid")
        else:
            try:
                answer = await self._answer(dialect, agent_event, body, request_id, arrived)
            except Exception as exc:  # a fault in hookd itself: answer it, keep serving
                log.exception("internal.error", request_id=request_id)
                problem = Problem("unavailable", f"internal error: {type(exc).__name__}")
                answer = self._problem(dialect, agent_event, problem)
        self.handler.stats.requests += 1
        elapsed_ms = round((time.perf_counter() - started) * 1000, 3)
        hookd_log.request_line(
            request_id, None, event=agent_event, method=f"agent/{agent}",
            outcome=answer.outcome, elapsed_ms=elapsed_ms,
        )  # fmt: skip
        return answer

    async def _answer(
        self, dialect: Dialect, agent_event: str, body: bytes, request_id: str, arrived: float
    ) -> AgentAnswer:
        payload = decode_body(body)
        if isinstance(payload, str):
            return self._problem(dialect, agent_event, Problem("invalid_input", payload))
        call = dialect.decode(agent_event, payload)
        if isinstance(call, Unsupported):
            log.info("agent.unsupported", request_id=request_id, reason=call.reason)
            return _as_http(Encoded(), "unsupported")
        call.request_id, call.arrived = request_id, arrived
        verdict = await self.handler.handle(call)
        assert verdict is not None  # no scope: never withdrawn
        return _as_http(self._encode(dialect, verdict, call), verdict.outcome)

    def _encode(self, dialect: Dialect, verdict: Verdict, call: HookCall) -> Encoded:
        """The verdict in the agent's dialect, with the note of the module's events its hook
        file leaves out when this session has not been shown it and the answer can carry it."""
        session = call.input.get("session_id")
        note = None if self.holder is None else self.holder.route_note(dialect.agent, session)
        if note is None:
            return dialect.encode(verdict, call)
        said = verdict.output.get("systemMessage")
        message = f"{said}\n{note}" if isinstance(said, str) and said else note
        output = {**verdict.output, "systemMessage": message}
        encoded = dialect.encode(msgspec.structs.replace(verdict, output=output), call)
        shown = encoded.stdout_json if encoded.exit_code == 0 and encoded.stdout else None
        if shown is not None and note in str(shown.get("systemMessage", "")):
            assert self.holder is not None and isinstance(session, str)
            self.holder.told_routes(dialect.agent, session)
        return encoded

    @staticmethod
    def _problem(dialect: Dialect, agent_event: str, problem: Problem) -> AgentAnswer:
        """A call hookd could not run, encoded as the agent's failure for that event."""
        event = dialect.claude_event(agent_event) or agent_event
        call = HookCall(event, {}, agent=dialect.agent, agent_event=agent_event)
        encoded = dialect.encode(Verdict(event, problem=problem), call)
        return _as_http(encoded, problem.kind)
