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
from typing import Final

import structlog

from hookd import agents
from hookd.agents import Dialect, Encoded, Unsupported
from hookd.engine.call import HookCall
from hookd.engine.kernel import Kernel
from hookd.engine.verdict import Problem, Verdict
from hookd.serve.http.answer import HttpReply, error_reply
from hookd.serve.http.codec import decode_body

__all__ = ["EXIT_HEADER", "AgentAnswers"]

log = structlog.get_logger("hookd.http")

EXIT_HEADER: Final = b"x-hookd-exit"


def _as_http(encoded: Encoded, outcome: str) -> HttpReply:
    body = encoded.stdout if encoded.exit_code == 0 else encoded.stderr.encode()
    return HttpReply(200, body, outcome, ((EXIT_HEADER, b"%d" % encoded.exit_code),))


class AgentAnswers:
    """Agent POSTs into the kernel (shared with ``/hook/``), verdicts into exits."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel
        self._count = 0

    async def post(self, target: str, body: bytes) -> HttpReply:
        """Answer one POST to ``/agent/<target>`` (``target`` is ``agent/AgentEvent``)."""
        arrived = time.monotonic()
        self._count += 1
        request_id = f"agent-{self._count}"
        agent, _, agent_event = target.partition("/")
        dialect = agents.DIALECTS.get(agent)
        if dialect is None:
            message = f"unknown agent {agent!r}: expected one of {', '.join(agents.AGENTS)}"
            call = HookCall(agent_event, {}, request_id=request_id, via=f"agent/{agent}")
            verdict = self.kernel.refuse(call, Problem("invalid_input", message))
            return error_reply(404, verdict.outcome, message)
        payload = decode_body(body)
        if isinstance(payload, str):
            event = dialect.claude_event(agent_event) or agent_event
            call = HookCall(
                event, {}, request_id=request_id, agent=agent, agent_event=agent_event,
                via=f"agent/{agent}",
            )  # fmt: skip
            refused = self.kernel.refuse(call, Problem("invalid_input", payload))
            return self._reply(dialect, refused, call)
        decoded = dialect.decode(agent_event, payload)
        if isinstance(decoded, Unsupported):
            log.info("agent.unsupported", request_id=request_id, reason=decoded.reason)
            return _as_http(Encoded(), "unsupported")
        decoded.request_id, decoded.arrived = request_id, arrived
        answered = await self.kernel.handle(decoded)
        assert answered is not None  # no scope: never withdrawn
        return self._reply(dialect, answered, decoded)

    @staticmethod
    def _reply(dialect: Dialect, verdict: Verdict, call: HookCall) -> HttpReply:
        """The verdict in the agent's dialect (a problem: the agent's failure for the event)."""
        return _as_http(dialect.encode(verdict, call), verdict.outcome)
