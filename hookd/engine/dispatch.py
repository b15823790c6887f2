"""``hooks/dispatch``: one call per event; hookd selects, runs and merges the hooks.

The hooks of the event whose matcher selects the input (:mod:`hookd.core.matcher`)
run in parallel, or one after another in registration order when any of
their matcher groups is ``sequential`` (then each hook sees the input as
rewritten by the ones before it). Each keeps its own timeout and failure
policy. Their outputs are merged by :mod:`hookd.engine.merge` into a
:class:`~hookd.engine.verdict.Verdict`. The request handler
(:mod:`hookd.engine.runs`) is the only caller.

Two parallel hooks that rewrite the input differently are a conflict: neither
rewrite is used, and on a guarded event (PreToolUse, PermissionRequest) the
call is denied with a reason naming both hooks.
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
import structlog
import trio

from hookd import wire
from hookd.core.matcher import MatcherError, compile_matcher, matcher_subject
from hookd.core.policy import Outcome, resolve
from hookd.core.registry import Registration, Registry
from hookd.engine.merge import Vote
from hookd.engine.rewrite import ChainStep, apply_rewrites, merge_guarded
from hookd.engine.verdict import Ran, Verdict

__all__ = ["RunOne", "in_order", "in_parallel", "merged", "select"]

log = structlog.get_logger("hookd.dispatch")

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder()

#: Runs one selected hook on its own copy of the input: how it ended.
RunOne = Callable[[Registration, dict[str, Any]], Awaitable[Outcome]]


def merged(
    event: str,
    ran: list[Ran],
    chain: list[ChainStep],
    sequential: bool,
    request_id: wire.RequestId | None,
) -> Verdict:
    """The hooks' outputs merged into one verdict; conflicts logged."""
    votes = [Vote(r.reg.callback_id, r.answer.payload) for r in ran if r.answer.payload is not None]
    result = merge_guarded(event, votes, sequential=sequential)
    for conflict in result.conflicts:
        log.warning(
            "dispatch.conflict",
            request_id=request_id,
            _event=event,
            **msgspec.to_builtins(conflict),
        )
    return Verdict(event, ran, result.output, result.conflicts, chain, sequential)


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


async def in_parallel(
    selected: list[tuple[Registration, str | None]], input_data: dict[str, Any], run: RunOne
) -> list[Ran]:
    """Every hook at once, each on its own copy of the input (one hook: no task of its own)."""
    if len(selected) == 1:
        reg, problem = selected[0]
        return [await one(reg, problem, copy_input(input_data), run)]
    ran: list[Ran | None] = [None] * len(selected)

    async def each(index: int, reg: Registration, problem: str | None) -> None:
        ran[index] = await one(reg, problem, copy_input(input_data), run)

    async with trio.open_nursery() as nursery:
        for index, (reg, problem) in enumerate(selected):
            nursery.start_soon(each, index, reg, problem)
    return [r for r in ran if r is not None]


async def in_order(
    event: str,
    selected: list[tuple[Registration, str | None]],
    input_data: dict[str, Any],
    run: RunOne,
) -> tuple[list[Ran], list[ChainStep]]:
    """One hook after another, each on the input as rewritten so far."""
    current = copy_input(input_data)
    ran: list[Ran] = []
    chain: list[ChainStep] = []
    for reg, problem in selected:
        done = await one(reg, problem, copy_input(current), run)
        ran.append(done)
        current, steps = apply_rewrites(event, current, reg.callback_id, done.answer.payload)
        chain += steps
    return ran, chain


async def one(
    reg: Registration, problem: str | None, input_data: dict[str, Any], run: RunOne
) -> Ran:
    """Run one hook under its own timeout and failure policy."""
    started = trio.current_time()
    if problem is not None:
        outcome = Outcome("exception", message=problem)
    else:
        outcome = await run(reg, input_data)  # its output encodes: checked where produced
    elapsed_ms = round((trio.current_time() - started) * 1000, 3)
    return Ran(reg, resolve(reg, outcome), elapsed_ms)


def copy_input(input_data: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of an input: through JSON when that gives an equal copy (much faster)."""
    try:
        copied = _decoder.decode(_encoder.encode(input_data))
    except (TypeError, ValueError, OverflowError, RecursionError):
        return copy.deepcopy(input_data)
    return copied if copied == input_data else copy.deepcopy(input_data)
