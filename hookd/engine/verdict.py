"""What the request handler gives back: one answer meaning, for every entrance to encode.

A :class:`Verdict` holds how each hook that ran ended (:class:`Ran`: its
answer after the failure policy), their merged output, and the call-level
:class:`Problem` when hookd could not run the call at all. Entrances turn it
into their wire: a ``hook_callback`` answer or error, a ``hooks/dispatch``
payload, an HTTP body.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, Literal, NamedTuple

import msgspec

from hookd.core.policy import Answer, describe
from hookd.core.registry import Registration
from hookd.engine.merge import Conflict
from hookd.engine.rewrite import ChainStep
from hookd.wire.errors import ErrorKind

__all__ = ["FAILED", "PROBLEMS", "HookRecord", "Problem", "ProblemWire", "Ran", "Verdict"]

#: Answer outcomes of a hook that failed under ``continue``: the hook gave no output.
FAILED: Final = frozenset({"exception", "timeout", "invalid_output", "quarantined"})

ProblemKind = Literal["invalid_input", "unknown_callback", "unavailable", "unsupported", "internal"]


class ProblemWire(NamedTuple):
    """How one kind of problem is said: the log's word, and its error on each wire."""

    outcome: str
    callback: ErrorKind  # a hook_callback's (and a can_use_tool's) error
    dispatch: ErrorKind  # a hooks/dispatch error (JSON-RPC)
    status: int  # an HTTP hook POST's status
    blocks: bool  # an agent's blocking event is denied (every problem is: hookd did not answer)


#: Every problem's words and errors, in one place (each entrance looks its problem up here).
PROBLEMS: Final[dict[ProblemKind, ProblemWire]] = {
    "invalid_input": ProblemWire(
        "invalid", ErrorKind.INVALID_REQUEST, ErrorKind.INVALID_PARAMS, 400, True
    ),
    "unknown_callback": ProblemWire(
        "unknown_callback", ErrorKind.UNKNOWN_CALLBACK, ErrorKind.UNKNOWN_CALLBACK, 400, True
    ),
    "unavailable": ProblemWire(
        "unavailable", ErrorKind.INTERNAL_ERROR, ErrorKind.INTERNAL_ERROR, 503, True
    ),
    "unsupported": ProblemWire(
        "unsupported", ErrorKind.UNSUPPORTED_REQUEST, ErrorKind.UNSUPPORTED_REQUEST, 400, True
    ),
    "internal": ProblemWire(
        "internal_error", ErrorKind.INTERNAL_ERROR, ErrorKind.INTERNAL_ERROR, 500, True
    ),
}


class HookRecord(msgspec.Struct, frozen=True, omit_defaults=True):
    """How one hook of a dispatch ended, as the ``hooks/dispatch`` answer lists it."""

    callback_id: str
    outcome: str
    elapsed_ms: float
    output: dict[str, Any] | None = None
    error: str | None = None


class Ran(msgspec.Struct, gc=False):  # one per run, never in a cycle: untracked
    """One hook's run: its registration, its answer after the failure policy, its time."""

    reg: Registration
    answer: Answer
    elapsed_ms: float

    @property
    def failed(self) -> bool:
        """True when the hook failed under ``continue``: it contributes no output."""
        return self.answer.outcome in FAILED

    def record(self) -> HookRecord:
        answer = self.answer
        return HookRecord(
            self.reg.callback_id,
            answer.outcome,
            round(self.elapsed_ms, 3),
            answer.payload,
            answer.message or None,
        )

    def note(self) -> str:
        """One line naming the hook and how it failed (for a ``systemMessage``)."""
        text = f"hookd: hook {self.reg.name} {describe(self.answer.outcome, self.answer.message)}"
        return text if self.answer.message else text.removesuffix(": ")


class Problem(msgspec.Struct, frozen=True):
    """Why a call could not be run at all (:data:`PROBLEMS` says it on each wire)."""

    kind: ProblemKind
    message: str

    @property
    def wire(self) -> ProblemWire:
        return PROBLEMS[self.kind]


class _Payload(msgspec.Struct, omit_defaults=True):
    """The ``hooks/dispatch`` answer as sent; empty ``conflicts`` and ``chain`` are left out."""

    output: dict[str, Any]
    hooks: list[HookRecord]
    conflicts: list[Conflict] = msgspec.field(default_factory=list)
    chain: list[ChainStep] = msgspec.field(default_factory=list)


class Verdict(msgspec.Struct, gc=False):  # one per call, never in a cycle: untracked
    """The answer to one call: every hook's run, their merged output, or a problem."""

    event: str
    ran: list[Ran] = msgspec.field(default_factory=list)
    output: dict[str, Any] = msgspec.field(default_factory=dict)
    conflicts: Sequence[Conflict] = ()
    chain: Sequence[ChainStep] = ()
    sequential: bool = False
    problem: Problem | None = None
    #: The runs of shadow hooks: logged and counted, never part of the answer.
    shadow: Sequence[Ran] = ()
    #: A note for the session was added to the output's ``systemMessage``.
    noted: bool = False

    @property
    def hooks(self) -> list[HookRecord]:
        """How each hook ended, in registration order."""
        return [ran.record() for ran in self.ran]

    @property
    def outcome(self) -> str:
        """One word for the log: ok, conflict, or the first hook's outcome that is not ok."""
        if self.problem is not None:
            return PROBLEMS[self.problem.kind].outcome
        if self.conflicts:
            return "conflict"
        for ran in self.ran:
            if ran.answer.outcome != "ok":
                return ran.answer.outcome
        return "ok"

    def to_wire(self) -> dict[str, Any]:
        """The ``hooks/dispatch`` answer payload."""
        payload = _Payload(self.output, self.hooks, list(self.conflicts), list(self.chain))
        wire_form: dict[str, Any] = msgspec.to_builtins(payload)
        return wire_form

    def with_notes(self) -> dict[str, Any]:
        """The merged output, plus a ``systemMessage`` line for each hook that failed under
        ``continue`` (the user sees it, the model does not)."""
        notes = [ran.note() for ran in self.ran if ran.failed]
        if not notes:
            return self.output
        output = dict(self.output)
        if isinstance(output.get("systemMessage"), str):
            notes.insert(0, output["systemMessage"])
        output["systemMessage"] = "\n".join(notes)
        return output
