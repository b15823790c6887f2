"""A replay's settings and its result, apart from the code that runs it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from hookd.transcript.answers import Answers
from hookd.transcript.format import Transcript
from hookd.transcript.plan import Plan

__all__ = ["Pace", "ReplayConfig", "ReplayResult"]

Pace = Literal["causal", "recorded"]


@dataclass(frozen=True, slots=True)
class ReplayConfig:
    """How to replay. ``hooks``/``speed`` override the header; times in seconds."""

    hooks: str | None = None
    speed: float | None = None
    pace: Pace = "causal"
    timeout_s: float = 10.0
    serve_args: tuple[str, ...] = ()
    command: tuple[str, ...] | None = None  # stdio: run this instead of `hookd serve HOOKS ...`


@dataclass(slots=True)
class ReplayResult:
    """What happened: the plan, the answers matched, and anything that went wrong.

    One type for every transport: ``plan.mode`` says which (``http``, else stdio).
    """

    transcript: Transcript
    command: list[str]
    plan: Plan
    answers: Answers
    mapping: dict[str, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # worth saying, not failures
    returncode: int | None = None
    stderr: bytearray = field(default_factory=bytearray)
    sent_at: dict[int, float] = field(default_factory=dict)  # transcript line -> trio time

    @property
    def ok(self) -> bool:
        a = self.answers
        return not (a.mismatches or a.unexpected or a.garbage or a.missing() or self.errors)
