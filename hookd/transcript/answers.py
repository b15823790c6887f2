"""Matching hookd's answers against the recorded ones while a replay runs.

Every transport delivers here: a stdio line is matched to the recording by its
request id, an HTTP answer by the request it answers (the transport knows it).
An answer is compared as parsed JSON (:mod:`hookd.transcript.jsondiff`), with
its HTTP status when it has one; a body that is not JSON as text.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass, field
from typing import Any

import msgspec
import trio

from hookd.transcript.jsondiff import MISSING, Difference, compare
from hookd.transcript.plan import OTHER, Expected, Key, answer_key

__all__ = ["Answers", "Mismatch"]

_decoder = msgspec.json.Decoder()


@dataclass(frozen=True, slots=True)
class Mismatch:
    """A recorded answer and the different one hookd gave."""

    expected: Expected
    got: Any
    differences: list[Difference]


@dataclass(slots=True)
class Answers:
    """Every answer expected, what arrived, and a way to wait for them."""

    expected: list[Expected]
    probes: set[Key] = field(default_factory=set)
    mismatches: list[Mismatch] = field(default_factory=list)
    unexpected: list[Any] = field(default_factory=list)
    unexpected_keys: list[Key] = field(default_factory=list)  # beside ``unexpected``
    garbage: list[bytes] = field(default_factory=list)
    probe_answers: dict[Key, Any] = field(default_factory=dict)
    eof: bool = False
    _queues: dict[Key, collections.deque[Expected]] = field(default_factory=dict)
    _arrived: list[bool] = field(default_factory=list)
    _low: int = 0
    _changed: trio.Event = field(default_factory=trio.Event)

    def __post_init__(self) -> None:
        for exp in self.expected:
            self._queues.setdefault(exp.key, collections.deque()).append(exp)
        self._arrived = [False] * len(self.expected)

    # -- arrivals -----------------------------------------------------------

    def deliver_line(self, line: bytes) -> None:
        """One line hookd wrote on stdout."""
        try:
            msg = _decoder.decode(line)
        except msgspec.DecodeError:
            self.garbage.append(line)
            self._wake()
            return
        self.deliver(msg)

    def deliver(
        self, msg: Any, key: Key | None = None, *, status: int | None = None, raw: str | None = None
    ) -> None:
        """One answer: ``msg`` parsed, matched to the recording by ``key`` (default: its
        request id). An HTTP answer has a ``status``, and ``raw`` text when its body is
        not JSON (then ``msg`` is None)."""
        key = key or answer_key(msg) or OTHER
        queue = self._queues.get(key)
        if key in self.probes:
            self.probe_answers[key] = msg
        elif queue:
            exp = queue.popleft()
            self._check(exp, msg, status, raw)
            self._arrived[exp.index] = True
        else:
            self.unexpected.append(msg if raw is None else raw)
            self.unexpected_keys.append(key)
        self._wake()

    def close(self) -> None:
        """hookd's stdout ended: nothing more will arrive."""
        self.eof = True
        self._wake()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    def _check(self, exp: Expected, got: Any, status: int | None, raw: str | None) -> None:
        recorded = exp.entry
        recorded_status = (recorded.http or {}).get("status")
        differences = []
        if status != recorded_status:
            differences.append(Difference(("HTTP status",), recorded_status, status))
        if recorded.raw is None and raw is None:
            differences += _compare_answer(recorded.msg, got)
        elif recorded.raw != raw:  # a body that is not JSON: compared as text
            was = recorded.msg if recorded.raw is None else recorded.raw
            differences.append(Difference((), was, got if raw is None else raw))
        if differences:
            self.mismatches.append(Mismatch(exp, got if raw is None else raw, differences))

    # -- waiting ------------------------------------------------------------

    def through(self, count: int) -> bool:
        """Whether the first ``count`` expected answers have all arrived."""
        while self._low < len(self._arrived) and self._arrived[self._low]:
            self._low += 1
        return self._low >= count

    async def wait_through(self, count: int) -> bool:
        """Wait until the first ``count`` answers arrived; False if hookd's output ended first."""
        while not self.through(count):
            if self.eof:
                return False
            await self._changed.wait()
        return True

    async def wait_probe(self, key: Key) -> Any:
        """The answer to one of the replayer's own requests; None if the output ended."""
        while key not in self.probe_answers:
            if self.eof:
                return None
            await self._changed.wait()
        return self.probe_answers.pop(key)

    def missing(self) -> list[Expected]:
        """Expected answers that never arrived."""
        return [exp for exp, done in zip(self.expected, self._arrived, strict=True) if not done]


def _compare_answer(recorded: Any, got: Any) -> list[Difference]:
    """Compare two answers; batch answers item by item, paired by id."""
    if not (isinstance(recorded, list) and isinstance(got, list)):
        return compare(recorded, got)
    by_key = {str(answer_key(item)): item for item in got}
    out: list[Difference] = []
    for index, item in enumerate(recorded):
        match = by_key.pop(str(answer_key(item)), None)
        if match is None:
            out.append(Difference((index,), item, MISSING))
        else:
            out += compare(item, match, (index,))
    out += [Difference(("+",), MISSING, item) for item in by_key.values()]
    return out
