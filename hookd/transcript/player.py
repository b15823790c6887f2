"""The replayer's sending side: CLI lines in order, paced, each after the answers before it."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final

import trio

from hookd.transcript.plan import Key, Step, map_callback_ids
from hookd.transcript.registrations import entries, match_ids
from hookd.wire import encode_message

if TYPE_CHECKING:
    from hookd.transcript.session import ReplayConfig, ReplayResult

__all__ = ["START_TIMEOUT_S", "Player", "probe_key"]

#: Longest wait for hookd to start and answer the replayer's first ``initialize``.
START_TIMEOUT_S: Final = 30.0


def probe_key(request_id: str) -> Key:
    """The answer key of one of the replayer's own ``initialize`` requests."""
    return ("control", f'"{request_id}"')


def probe_line(request_id: str) -> bytes:
    body = {"subtype": "initialize"}
    return encode_message({"type": "control_request", "request_id": request_id, "request": body})


class Player:
    """Sends the plan's steps in order, paced, each after the answers before it."""

    def __init__(
        self, result: ReplayResult, config: ReplayConfig, stdin: trio.abc.SendStream
    ) -> None:
        self.result, self.config, self.stdin = result, config, stdin
        header_speed = result.transcript.header.speed
        self.speed = config.speed if config.speed is not None else header_speed
        self.sent_at: dict[Key, float] = {}
        self.last_sent: float | None = None
        self.init_id, self.fence_id = result.probe_ids

    async def play(self) -> None:
        plan = self.result.plan
        if not await self._handshake():
            return
        for step in plan.steps:
            if not await self._wait_answers(step.after, f"line {step.entry.lineno}"):
                return
            await trio.sleep_until(self._due(step))
            if not await self._send(step):
                return
        if await self._wait_answers(len(plan.expected), "the end"):
            await self._probe(self.fence_id)

    async def _handshake(self) -> bool:
        """Wait until hookd answers an ``initialize``; match the recorded callback ids to its."""
        answer = await self._probe(self.init_id, max(START_TIMEOUT_S, self.config.timeout_s))
        if answer is None:
            return False
        recorded = self.result.plan.recorded_hooks
        if recorded is None:
            return True
        try:
            live = answer["response"]["response"]["hooks"]
        except (KeyError, TypeError):
            self.result.errors.append(f"initialize: no hooks map in hookd's answer: {answer!r}")
            return False
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
        if not await self._write(step.entry.wire_bytes(msg), f"line {step.entry.lineno}"):
            return False
        self.last_sent = self.result.sent_at[step.entry.lineno] = trio.current_time()
        if step.key is not None:
            self.sent_at[step.key] = self.last_sent
        return True

    async def _write(self, data: bytes, what: str) -> bool:
        try:
            await self.stdin.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self.result.errors.append(f"hookd closed its input before {what} was sent")
            return False
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

    async def _probe(self, request_id: str, timeout_s: float | None = None) -> Any:
        if not await self._write(probe_line(request_id), f"the {request_id} request"):
            return None
        with trio.move_on_after(timeout_s or self.config.timeout_s):
            answer = await self.result.answers.wait_probe(probe_key(request_id))
            if answer is not None:
                return answer
        self.result.errors.append(f"no answer to the replayer's own {request_id} request")
        return None


def _with_hooks(msg: Any, hooks: Any) -> Any:
    """A recorded ``initialize`` answer with ``hooks`` in place of its own hooks map."""
    response = msg["response"]
    payload = {**response["response"], "hooks": hooks}
    return {**msg, "response": {**response, "response": payload}}


def _scaled(seconds: float, speed: float) -> float:
    return 0.0 if math.isinf(speed) else seconds / speed
