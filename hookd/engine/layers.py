"""The kernel's layers: each sees a call on its way in and its verdict on its way out.

A :class:`Layer` may refuse a call before any hook runs (:meth:`Layer.admit`: a
:class:`~hookd.engine.verdict.Problem`) and may change the verdict before the
entrance encodes it (:meth:`Layer.settle`). The kernel's own layers, in order:

* :class:`InputCheck`: the input is valid for its event (with validation on);
* the entrance's layers (the daemon adds :class:`SessionNotes`);
* :class:`OutputCheck`: a merged output is still valid for its event;
* :class:`SessionState`: a SessionEnd frees the state its session kept.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import msgspec
import structlog

from hookd.core.registry import Registry
from hookd.engine.call import HookCall
from hookd.engine.verdict import Problem, Verdict
from hookd.events import EVENT_SPECS
from hookd.events.validation import check_input, validate_output

__all__ = [
    "Admit",
    "InputCheck",
    "Layer",
    "NoteSource",
    "OutputCheck",
    "SessionNotes",
    "SessionState",
    "Settle",
]

log = structlog.get_logger("hookd.handler")

#: A layer's :meth:`Layer.admit`, as the kernel keeps it.
Admit = Callable[[HookCall, str], Problem | None]
#: A layer's :meth:`Layer.settle`, as the kernel keeps it for each event.
Settle = Callable[[HookCall, Registry, Verdict], Verdict]

SESSION_END = "SessionEnd"


class Layer:
    """A step around every call; the base class lets everything through unchanged.

    ``merged_only``: the layer's :meth:`settle` has nothing to do for a call that names
    one hook; ``events``: the only events whose verdicts it settles (None: every event);
    ``acts``: false when the layer, as configured, does nothing at all. The kernel leaves
    a layer out of the calls it has nothing to do for."""

    merged_only = False
    events: frozenset[str] | None = None
    acts = True

    def admit(self, call: HookCall, event: str) -> Problem | None:
        """Why ``call`` (of ``event``: the named hook's) must not run, or None."""
        return None

    def settle(self, call: HookCall, registry: Registry, verdict: Verdict) -> Verdict:
        """The verdict as the entrance will encode it."""
        return verdict


class InputCheck(Layer):
    """A hook's input must be valid for its event (always valid with validation off)."""

    def __init__(self, validate: bool) -> None:
        self.validate = self.acts = validate
        self._warned: set[str] = set()

    def admit(self, call: HookCall, event: str) -> Problem | None:
        if not self.validate:
            return None
        if event not in EVENT_SPECS:
            self._unknown(event)
        problem = check_input(event, call.input)
        return None if problem is None else Problem("invalid_input", problem)

    def check(self, event: str, input_data: dict[str, Any]) -> str | None:
        """What is wrong with a hook's input, or None."""
        if not self.validate:
            return None
        if event not in EVENT_SPECS:
            self._unknown(event)
        return check_input(event, input_data)

    def _unknown(self, event: str) -> None:
        if event not in self._warned:
            self._warned.add(event)
            log.warning("event.unknown", _event=event, note="input passed through unchecked")


class OutputCheck(Layer):
    """A merged output (several hooks' answers, or the session's notes added) is checked
    again: a merge hookd got wrong is its own fault, never an answer the agent misreads."""

    merged_only = True

    def __init__(self, validate: bool) -> None:
        self.validate = self.acts = validate

    def settle(self, call: HookCall, registry: Registry, verdict: Verdict) -> Verdict:
        if not self.validate or verdict.problem is not None or call.callback_id is not None:
            return verdict
        if len(verdict.ran) < 2 and not verdict.noted:
            return verdict  # one hook's output was checked where it was produced
        invalid = validate_output(verdict.event, verdict.with_notes())
        if invalid is None:
            return verdict
        log.error("merge.invalid", request_id=call.request_id, _event=verdict.event, error=invalid)
        return Verdict(
            verdict.event, problem=Problem("internal", f"hookd merged an invalid output: {invalid}")
        )


class SessionState(Layer):
    """After a SessionEnd, the state its session kept is freed."""

    events = frozenset({SESSION_END})

    def settle(self, call: HookCall, registry: Registry, verdict: Verdict) -> Verdict:
        if verdict.event == SESSION_END:
            registry.end_session(call.session_id)
        return verdict


class NoteSource(Protocol):
    """Where a session's notes come from (the daemon's registry holder)."""

    def notes(self, call: HookCall) -> str | None:
        """The lines ``call``'s session is to be shown now, or None."""


class SessionNotes(Layer):
    """What a session is told once, in the next answer that can carry it: a save that did
    not load, events of the module that the agent's hook file does not route."""

    def __init__(self, source: NoteSource) -> None:
        self.source = source

    def settle(self, call: HookCall, registry: Registry, verdict: Verdict) -> Verdict:
        if verdict.problem is not None or not call.shows_message:
            return verdict
        note = self.source.notes(call)
        if note is None:
            return verdict
        said = verdict.output.get("systemMessage")
        message = f"{said}\n{note}" if isinstance(said, str) and said else note
        output = {**verdict.output, "systemMessage": message}
        return msgspec.structs.replace(verdict, output=output, noted=True)
