"""``hooks/dispatch``: one call per event; hookd selects, runs and merges the hooks.

The hooks of the event whose matcher selects the input (:mod:`hookd.core.matcher`)
run in parallel, or one after another in registration order when any of
their matcher groups is ``sequential`` (then each hook sees the input as
rewritten by the ones before it). Each keeps its own timeout and failure
policy. Their outputs are merged by :mod:`hookd.engine.merge`; the answer is::

    {"output": merged, "hooks": [per-hook records], "conflicts": [...]?, "chain": [...]?}

Two parallel hooks that rewrite the input differently are a conflict: neither
rewrite is used, and on a guarded event (PreToolUse, PermissionRequest) the
call is denied with a reason naming both hooks.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import msgspec
import structlog
import trio

from hookd import wire
from hookd.core.context import HookContext
from hookd.core.matcher import MatcherError, compile_matcher, matcher_subject
from hookd.core.policy import Answer, Outcome, resolve
from hookd.core.registry import Registration, Registry
from hookd.engine.executor import Executor
from hookd.engine.inline import run_hook
from hookd.engine.merge import Conflict, Vote
from hookd.engine.rewrite import ChainStep, apply_rewrites, merge_guarded
from hookd.wire.errors import ErrorKind

__all__ = ["DispatchResult", "HookRecord", "answer_dispatch", "dispatch", "select"]

log = structlog.get_logger("hookd.dispatch")

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder()


# ----------------------------------------------------------------------- results


class HookRecord(msgspec.Struct, frozen=True, omit_defaults=True):
    """How one hook of a dispatch ended: its outcome, time and own output or error."""

    callback_id: str
    outcome: str
    elapsed_ms: float
    output: dict[str, Any] | None = None
    error: str | None = None


class _Payload(msgspec.Struct, omit_defaults=True):
    """The ``hooks/dispatch`` answer as sent; empty ``conflicts`` and ``chain`` are left out."""

    output: dict[str, Any]
    hooks: list[HookRecord]
    conflicts: list[Conflict] = msgspec.field(default_factory=list)
    chain: list[ChainStep] = msgspec.field(default_factory=list)


@dataclass(slots=True)
class DispatchResult:
    """The merged output of one event's hooks, with how each hook ended."""

    event: str
    merged: dict[str, Any] = field(default_factory=dict)
    hooks: list[HookRecord] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    chain: list[ChainStep] = field(default_factory=list)
    sequential: bool = False

    def to_wire(self) -> dict[str, Any]:
        """The ``hooks/dispatch`` answer payload."""
        payload = _Payload(self.merged, self.hooks, self.conflicts, self.chain)
        wire_form: dict[str, Any] = msgspec.to_builtins(payload)
        return wire_form


# ---------------------------------------------------------------------- entry points


async def dispatch(
    registry: Registry,
    event: str,
    input_data: dict[str, Any],
    tool_use_id: str | None = None,
    *,
    executor: Executor | None = None,
    request_id: wire.RequestId | None = None,
) -> DispatchResult:
    """Run ``event``'s hooks that select ``input_data``; merge their outputs.

    ``tool_use_id`` defaults to the input's own ``tool_use_id``. Never raises
    for a hook's failure; only cancellation passes through.
    """
    selected = select(registry, event, input_data)
    if not selected:
        return DispatchResult(event)
    run = _Run(
        registry,
        executor or Executor(),
        event,
        tool_use_id if tool_use_id is not None else _str_or_none(input_data.get("tool_use_id")),
        request_id,
    )
    sequential = any(reg.sequential for reg, _ in selected)
    if sequential:
        hooks, chain = await run.in_order(selected, input_data)
    else:
        hooks, chain = await run.in_parallel(selected, input_data), []
    return _merged(event, hooks, chain, sequential, request_id)


def _merged(
    event: str,
    hooks: list[HookRecord],
    chain: list[ChainStep],
    sequential: bool,
    request_id: wire.RequestId | None,
) -> DispatchResult:
    """The hooks' outputs merged into one result; conflicts logged."""
    votes = [Vote(h.callback_id, h.output) for h in hooks if h.output is not None]
    merged = merge_guarded(event, votes, sequential=sequential)
    for conflict in merged.conflicts:
        log.warning(
            "dispatch.conflict",
            request_id=request_id,
            _event=event,
            **msgspec.to_builtins(conflict),
        )
    log.debug(
        "dispatch.completed",
        request_id=request_id,
        _event=event,
        sequential=sequential,
        hooks={h.callback_id: h.outcome for h in hooks},
    )
    return DispatchResult(event, merged.output, hooks, merged.conflicts, chain, sequential)


async def answer_dispatch(
    registry: Registry,
    executor: Executor,
    request_id: wire.RequestId | None,
    body: wire.HookDispatch,
) -> Answer:
    """The server's entry: check the input, dispatch, answer the wire payload."""
    problem = _check_input(executor, body.event, body.input)
    if problem is not None:
        return Answer(
            "invalid", error_kind=ErrorKind.INVALID_PARAMS, message=problem, event=body.event
        )
    result = await dispatch(
        registry,
        body.event,
        body.input,
        body.tool_use_id,
        executor=executor,
        request_id=request_id,
    )
    outcome = "conflict" if result.conflicts else "ok"
    return Answer(outcome, payload=result.to_wire(), event=body.event)


def select(
    registry: Registry, event: str, input_data: dict[str, Any]
) -> list[tuple[Registration, str | None]]:
    """``event``'s registrations whose matcher selects ``input_data``, in id order.

    A matcher that is not a valid regex is selected with its error as the
    second item: the hook then fails under its own failure policy.
    """
    subject = matcher_subject(event, input_data)
    chosen: list[tuple[Registration, str | None]] = []
    for reg in registry.for_event(event):
        if subject is None:
            chosen.append((reg, None))
            continue
        try:
            if compile_matcher(reg.matcher).matches(subject):
                chosen.append((reg, None))
        except MatcherError as exc:
            chosen.append((reg, str(exc)))
    return chosen


# --------------------------------------------------------------------------- running


@dataclass(frozen=True, slots=True)
class _Run:
    registry: Registry
    executor: Executor
    event: str
    tool_use_id: str | None
    request_id: wire.RequestId | None

    async def in_parallel(
        self, selected: list[tuple[Registration, str | None]], input_data: dict[str, Any]
    ) -> list[HookRecord]:
        """Every hook at once, each on its own copy of the input (one hook: no task of its own)."""
        if len(selected) == 1:
            reg, problem = selected[0]
            return [await self.one(reg, problem, _copy(input_data))]
        records: list[HookRecord | None] = [None] * len(selected)

        async def one(index: int, reg: Registration, problem: str | None) -> None:
            records[index] = await self.one(reg, problem, _copy(input_data))

        async with trio.open_nursery() as nursery:
            for index, (reg, problem) in enumerate(selected):
                nursery.start_soon(one, index, reg, problem)
        return [r for r in records if r is not None]

    async def in_order(
        self, selected: list[tuple[Registration, str | None]], input_data: dict[str, Any]
    ) -> tuple[list[HookRecord], list[ChainStep]]:
        """One hook after another, each on the input as rewritten so far."""
        current = _copy(input_data)
        records: list[HookRecord] = []
        chain: list[ChainStep] = []
        for reg, problem in selected:
            record = await self.one(reg, problem, _copy(current))
            records.append(record)
            current, steps = apply_rewrites(self.event, current, reg.callback_id, record.output)
            chain += steps
        return records, chain

    async def one(
        self, reg: Registration, problem: str | None, input_data: dict[str, Any]
    ) -> HookRecord:
        """Run one hook under its own timeout and failure policy."""
        started = trio.current_time()
        if problem is not None:
            outcome = Outcome("exception", message=problem)
        else:
            ctx = HookContext(
                request_id=self.request_id,
                callback_id=reg.callback_id,
                event=self.event,
                tool_use_id=self.tool_use_id,
                timeout_s=reg.timeout_s,
                state=self.registry.session_state(_str_or_none(input_data.get("session_id"))),
            )
            outcome = await run_hook(self.executor, reg, input_data, self.tool_use_id, ctx)
            outcome = _encodable(outcome)
        answer = resolve(reg, outcome)
        elapsed_ms = round((trio.current_time() - started) * 1000, 3)
        return HookRecord(
            reg.callback_id, answer.outcome, elapsed_ms, answer.payload, answer.message or None
        )


# ---------------------------------------------------------------------------- helpers


def _copy(input_data: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of an input: through JSON when that gives an equal copy (much faster)."""
    try:
        copied = _decoder.decode(_encoder.encode(input_data))
    except (TypeError, ValueError, OverflowError, RecursionError):
        return copy.deepcopy(input_data)
    return copied if copied == input_data else copy.deepcopy(input_data)


def _encodable(outcome: Outcome) -> Outcome:
    """A JSON-unencodable output is an invalid output, so it fails this hook only."""
    if outcome.kind != "ok" or outcome.output is None:
        return outcome
    try:
        msgspec.json.encode(outcome.output)
    except (TypeError, ValueError, OverflowError) as exc:
        return Outcome("invalid_output", message=f"output is not JSON-serialisable: {exc}")
    return outcome


def _check_input(executor: Executor, event: str, input_data: dict[str, Any]) -> str | None:
    if not executor.validate:
        return None
    from hookd.events.validation import check_input

    return check_input(event, input_data)


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None
