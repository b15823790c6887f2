"""The replayer's sending side: CLI messages in order, paced, each after the answers before it.

The same for every transport (:mod:`hookd.transcript.transport`): a message is
sent once every answer recorded before it has arrived, so a recording's cause
and effect are kept; a cancel waits as long after its request as recorded.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import trio

from hookd.transcript.plan import Key, Step, map_callback_ids
from hookd.transcript.registrations import entries, match_ids
from hookd.wire import classify, with_payload

if TYPE_CHECKING:
    from hookd.transcript.session import ReplayConfig, ReplayResult
    from hookd.transcript.transport import Transport

__all__ = ["Player"]


class Player:
    """Sends the plan's steps in order, paced, each after the answers before it."""

    def __init__(self, result: ReplayResult, config: ReplayConfig, transport: Transport) -> None:
        self.result, self.config, self.transport = result, config, transport
        header_speed = result.transcript.header.speed
        self.speed = config.speed if config.speed is not None else header_speed
        self.sent_at: dict[Key, float] = {}
        self.last_sent: float | None = None

    async def play(self) -> None:
        """Play every step into a started server, then wait for the last answers."""
        plan = self.result.plan
        if not self._match_callback_ids():
            return
        for step in plan.steps:
            if not await self._wait_answers(step.after, f"line {step.entry.lineno}"):
                return
            await trio.sleep_until(self._due(step))
            if not await self._send(step):
                return
        if await self._wait_answers(len(plan.expected), "the end"):
            await self.transport.drain()

    def _match_callback_ids(self) -> bool:
        """Match the recorded callback ids to those of hookd's ``initialize`` answer."""
        recorded = self.result.plan.recorded_hooks
        if recorded is None:
            return True
        answer = self.transport.initialize_answer
        seen = classify(answer)
        payload = seen.payload if seen is not None else None
        if not isinstance(payload, dict) or "hooks" not in payload:
            self.result.errors.append(f"initialize: no hooks map in hookd's answer: {answer!r}")
            return False
        live = payload["hooks"]
        found = match_ids(entries(recorded), entries(live))
        self.result.mapping = found.mapping
        self.result.errors += found.changed
        self.result.errors += [
            f"the recording's {e.describe()} has no counterpart in the hooks module"
            for e in found.unmatched
        ]
        self.result.notes += [
            f"{e.describe()} is new: the recording never registered it" for e in found.extra
        ]
        for expected in self.result.plan.initialize_answers:  # compared above, id by id
            expected.entry = replace(expected.entry, msg=_with_hooks(expected.entry.msg, live))
        return True

    def _due(self, step: Step) -> float:
        due = trio.current_time()
        if step.cancels is not None and step.cancels in self.sent_at:
            due = max(due, self.sent_at[step.cancels] + _scaled(step.delay_s, self.speed))
        if self.config.pace == "recorded" and self.last_sent is not None:
            due = max(due, self.last_sent + _scaled(step.gap_s, self.speed))
        return due

    async def _send(self, step: Step) -> bool:
        msg = map_callback_ids(step.entry.msg, self.result.mapping)
        if not await self.transport.send(step, msg):
            return False
        self.last_sent = self.result.sent_at[step.entry.lineno] = trio.current_time()
        if step.key is not None:
            self.sent_at[step.key] = self.last_sent
        return True

    async def _wait_answers(self, count: int, before: str) -> bool:
        timeout = self.config.timeout_s
        with trio.move_on_after(timeout):
            if await self.result.answers.wait_through(count):
                return True
            self.result.errors.append(f"hookd closed its output while answers were due ({before})")
            return False
        self.result.errors.append(f"answers still missing after {timeout:g}s (before {before})")
        return False


def _with_hooks(msg: Any, hooks: Any) -> Any:
    """A recorded ``initialize`` answer with ``hooks`` in place of its own hooks map."""
    seen = classify(msg)
    payload = seen.payload if seen is not None else None
    assert isinstance(payload, dict)  # only such answers are noted (plan._note_initialize_answer)
    return with_payload(msg, {**payload, "hooks": hooks})


def _scaled(seconds: float, speed: float) -> float:
    return 0.0 if math.isinf(speed) else seconds / speed
