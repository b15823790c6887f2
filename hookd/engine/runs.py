"""The kernel's middle step: the call's hooks run, each under its policy, and merged.

Each hook runs through the one :class:`~hookd.engine.executor.Executor`, on the
quarantine's leash when it is quarantined in the call's session
(:mod:`hookd.engine.quarantine`), and its outcome goes through its failure policy
(:func:`hookd.core.policy.resolve`). A named hook's answer is the verdict's output
(the agent merges); selected hooks run in parallel, or in order when a group is
sequential, and are merged (:mod:`hookd.engine.dispatch`). Shadow hooks run in a
task of their own: the verdict never waits for them, and the call is finished (seen
by the observers) once they end.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import trio

from hookd.core.context import HookContext
from hookd.core.health import Sick
from hookd.core.policy import Answer, Outcome, resolve
from hookd.core.registry import Registration, Registry
from hookd.engine import quarantine
from hookd.engine.call import CAN_USE_TOOL, HookCall, PermissionCall
from hookd.engine.dispatch import RunOne, in_order, in_parallel, merged
from hookd.engine.executor import Executor, Paused, trio_deadline
from hookd.engine.permission import PERMISSION_ID, PermissionContext, permission_output
from hookd.engine.verdict import Ran, Verdict

__all__ = ["Answered", "Finish", "Runs", "Waiting"]

#: How a call is finished (its observers told): the call, its registry, its verdict, its start.
Finish = Callable[[HookCall, Registry | None, Verdict, float], None]

_Selected = list[tuple[Registration, str | None]]


class Waiting:
    """A call that needs awaiting: hooks to run, or one hook paused inline."""

    __slots__ = ("call", "ctx", "paused", "reg", "registry", "selected", "sick", "started")

    def __init__(
        self, call: HookCall, registry: Registry, selected: _Selected, started: float
    ) -> None:
        self.call = call
        self.registry = registry
        self.selected = selected
        self.started = started
        self.reg: Registration | None = None  # the one named hook
        self.ctx: HookContext | None = None
        self.paused: Paused | None = None
        self.sick: Sick | None = None  # the named hook is on its quarantine's leash

    @property
    def deadline(self) -> float:
        """A paused hook's deadline on trio's clock (the caller's cancel scope takes it)."""
        assert self.ctx is not None
        return trio_deadline(self.ctx)


class Answered:
    """A verdict given while shadow hooks still run: the kernel settles it and leaves
    :attr:`verdict` here for the shadow task, which finishes the call when they end."""

    __slots__ = ("verdict",)

    def __init__(self, verdict: Verdict) -> None:
        self.verdict = verdict


class Runs:
    """Runs a call's hooks; ``finish`` is the kernel's, for calls shadow hooks end late."""

    def __init__(self, executor: Executor, finish: Finish) -> None:
        self.executor = executor
        self._finish = finish

    # -- one named hook -----------------------------------------------------------------

    def named(
        self,
        call: HookCall,
        registry: Registry,
        reg: Registration,
        started: float,
        inline: bool = False,
    ) -> Verdict | Waiting:
        """The named hook run inline up to its first yield when it can be (``inline``: the
        caller checked it can), else waiting."""
        health = registry.health
        sick = health.leash(quarantine.key(call, reg)) if health.records else None
        if not (inline or self.executor.inline(reg)):
            return self._waiting(call, registry, started, reg, sick=sick)
        ctx = self._context(call, reg, registry, leashed=sick is not None)
        began = self.executor.begin(reg, call.input, call.tool_use_id, ctx, True)
        if type(began) is Outcome:
            return self._named_verdict(registry, reg, sick, began, started)
        assert isinstance(began, Paused)
        return self._waiting(call, registry, started, reg, ctx=ctx, paused=began, sick=sick)

    def expired(self, waiting: Waiting) -> Verdict:
        """The verdict on a hook paused inline whose deadline passed."""
        assert waiting.reg is not None and waiting.ctx is not None
        outcome = self.executor.timed_out(waiting.reg, waiting.ctx)
        return self._named_verdict(
            waiting.registry, waiting.reg, waiting.sick, outcome, waiting.started
        )

    def _named_verdict(
        self,
        registry: Registry,
        reg: Registration,
        sick: Sick | None,
        outcome: Outcome,
        started: float,
    ) -> Verdict:
        """One named hook's verdict: its answer as the output (the agent merges); a shadow
        hook's answer is kept apart and the agent gets an empty one."""
        if sick is not None:
            outcome = quarantine.on_leash(registry.health, reg, sick, outcome)
        answer = resolve(reg, outcome)
        ran = Ran(reg, answer, (time.perf_counter() - started) * 1000)
        if reg.shadow:
            empty = Ran(reg, Answer("ok", {}, None, "", reg.event), ran.elapsed_ms)
            return Verdict(reg.event, [empty], {}, shadow=[ran])
        payload = answer.payload
        return Verdict(reg.event, [ran], payload if payload is not None else {})

    # -- waiting calls ------------------------------------------------------------------

    async def run(self, waiting: Waiting) -> Verdict | Answered:
        """Run a waiting call's hooks to their verdict."""
        call, registry, reg = waiting.call, waiting.registry, waiting.reg
        if reg is not None:
            if reg.shadow and waiting.paused is None:
                return self._shadow_named(waiting)
            if waiting.paused is not None:
                assert waiting.ctx is not None
                outcome = await self.executor.finish(reg, waiting.ctx, waiting.paused)
            else:
                ctx = self._context(call, reg, registry, leashed=waiting.sick is not None)
                outcome = await self.executor.run(reg, call.input, call.tool_use_id, ctx)
            return self._named_verdict(registry, reg, waiting.sick, outcome, waiting.started)
        run = self._run_one(call, registry)
        if registry.has_shadow and any(r.shadow for r, _ in waiting.selected):
            return await self._with_shadow(waiting, run)
        return await _run_selected(call, waiting.selected, run)

    def _run_one(self, call: HookCall, registry: Registry) -> RunOne:
        tool_use_id = call.tool_use_id
        if tool_use_id is None:  # a dispatch may carry it in the input only
            found = call.input.get("tool_use_id")
            tool_use_id = found if isinstance(found, str) else None
        health = registry.health

        async def run(reg: Registration, input_data: dict[str, Any]) -> Outcome:
            sick = health.leash(quarantine.key(call, reg)) if health.records else None
            ctx = self._context(
                call, reg, registry, input_data, tool_use_id, leashed=sick is not None
            )
            if reg.callback_id != PERMISSION_ID:
                outcome = await self.executor.run(reg, input_data, tool_use_id, ctx)
            else:
                outcome = await self._permission_vote(reg, input_data, tool_use_id, ctx)
            return outcome if sick is None else quarantine.on_leash(health, reg, sick, outcome)

        return run

    def _shadow_named(self, waiting: Waiting) -> Answered:
        """A named shadow hook that does not end inline: the agent's empty answer now, the
        hook run to its end (and the call finished) in a task of its own."""
        reg = waiting.reg
        assert reg is not None
        answered = Answered(Verdict(reg.event, [Ran(reg, _empty(reg), 0.0)], {}))

        async def later() -> None:
            ctx = self._context(
                waiting.call, reg, waiting.registry, leashed=waiting.sick is not None
            )
            outcome = await self.executor.run(reg, waiting.call.input, None, ctx)
            ran = self._named_verdict(waiting.registry, reg, waiting.sick, outcome, waiting.started)
            answered.verdict.shadow = ran.shadow
            self._finish(waiting.call, waiting.registry, answered.verdict, waiting.started)

        trio.lowlevel.spawn_system_task(later, name="hookd.shadow")
        return answered

    async def _with_shadow(self, waiting: Waiting, run: RunOne) -> Verdict | Answered:
        """The real hooks' verdict; the shadow hooks run beside them in a task of their
        own, their runs kept apart. When they end first the verdict carries them; else
        the call is finished when they end."""
        call = waiting.call
        real = [(reg, p) for reg, p in waiting.selected if not reg.shadow]
        shadow = [(reg, p) for reg, p in waiting.selected if reg.shadow]
        shadow_ran: list[Ran] = []
        answered: list[Answered] = []

        async def run_shadow() -> None:
            shadow_ran.extend(await in_parallel(shadow, call.input, run))
            if answered:  # the agent has its answer already: finish the call now
                verdict = answered[0].verdict
                verdict.shadow = shadow_ran
                self._finish(call, waiting.registry, verdict, waiting.started)

        trio.lowlevel.spawn_system_task(run_shadow, name="hookd.shadow")
        verdict = await _run_selected(call, real, run)
        if len(shadow_ran) == len(shadow):  # the shadow hooks ended first
            verdict.shadow = shadow_ran
            return verdict
        answered.append(Answered(verdict))
        return answered[0]

    # -- permission questions -----------------------------------------------------------

    async def ask(
        self,
        question: PermissionCall,
        registry: Registry,
        reg: Registration,
        scope: trio.CancelScope,
    ) -> Answer | None:
        """``can_use_tool``'s answer to ``question``; None when withdrawn."""
        health = registry.health
        found = (question.agent, "", reg.callback_id)  # the question names no session
        sick = health.leash(found) if health else None
        timeout_s = reg.timeout_s if sick is None else min(reg.timeout_s, health.policy.leash_s)
        ctx = PermissionContext(
            suggestions=list(question.suggestions or []),
            blocked_path=question.blocked_path,
            decision_reason=question.decision_reason,
            agent_id=question.agent_id,
            request_id=question.request_id,
            callback_id=reg.callback_id,
            event=CAN_USE_TOOL,
            tool_use_id=question.tool_use_id,
            timeout_s=timeout_s,
            state={},
            arrived=question.arrived or None,
            agent=question.agent,
        )
        data = {"tool_name": question.tool_name, "tool_input": question.input}
        outcome = await self.executor.run(reg, data, question.tool_use_id, ctx, scope)
        if sick is not None:
            outcome = quarantine.on_leash(health, reg, sick, outcome)
        if outcome.kind == "cancelled":
            return None
        if outcome.kind == "ok":
            return Answer("ok", payload=_filled(outcome, question.input), event=CAN_USE_TOOL)
        if outcome.kind == "abort":  # HookAbortError: deny, and stop the run
            payload = {"behavior": "deny", "message": outcome.message, "interrupt": True}
            return Answer("aborted", payload=payload, event=CAN_USE_TOOL)
        return resolve(reg, outcome)  # an error answer of the failure's kind

    async def _permission_vote(
        self,
        reg: Registration,
        input_data: dict[str, Any],
        tool_use_id: str | None,
        ctx: HookContext,
    ) -> Outcome:
        """``can_use_tool`` asked about a PermissionRequest: its answer as that hook's output."""
        tool_input = input_data.get("tool_input")
        tool_input = tool_input if isinstance(tool_input, dict) else {}
        data = {"tool_name": input_data.get("tool_name"), "tool_input": tool_input}
        outcome = await self.executor.run(reg, data, tool_use_id, ctx)
        if outcome.kind != "ok":
            return outcome
        return Outcome("ok", permission_output(reg.event, _filled(outcome, tool_input)))

    # -- contexts -----------------------------------------------------------------------

    def _waiting(
        self,
        call: HookCall,
        registry: Registry,
        started: float,
        reg: Registration,
        *,
        ctx: HookContext | None = None,
        paused: Paused | None = None,
        sick: Sick | None = None,
    ) -> Waiting:
        waiting = Waiting(call, registry, [(reg, None)], started)
        waiting.reg, waiting.ctx, waiting.paused, waiting.sick = reg, ctx, paused, sick
        return waiting

    @staticmethod
    def _context(
        call: HookCall,
        reg: Registration,
        registry: Registry,
        input_data: dict[str, Any] | None = None,
        tool_use_id: str | None = None,
        *,
        leashed: bool = False,
    ) -> HookContext:
        """The hook's context; ``leashed``: quarantined in this session, it has the
        quarantine's leash to answer (its own timeout when that is shorter)."""
        data = call.input if input_data is None else input_data
        session_id = data.get("session_id")
        session_id = session_id if isinstance(session_id, str) else None
        timeout_s = reg.timeout_s
        if leashed:
            timeout_s = min(timeout_s, registry.health.policy.leash_s)
        return HookContext(  # positional: made for every hook call, in HookContext's order
            call.request_id,
            reg.callback_id,
            reg.event,
            tool_use_id if tool_use_id is not None else call.tool_use_id,
            timeout_s,
            registry.state.for_session(session_id),
            call.arrived or None,
            call.agent,
            call.agent_event,
            call.agent_tool,
            session_id,
        )


async def _run_selected(call: HookCall, selected: _Selected, run: RunOne) -> Verdict:
    """Run ``selected`` in parallel, or in order when a group is sequential; their merge."""
    sequential = any(reg.sequential for reg, _ in selected)
    if sequential:
        ran, chain = await in_order(call.event, selected, call.input, run)
    else:
        ran, chain = await in_parallel(selected, call.input, run), []
    return merged(call.event, ran, chain, sequential, call.request_id)


def _filled(outcome: Outcome, tool_input: dict[str, Any]) -> dict[str, Any]:
    """A permission payload whose allow carries the input (the original when not rewritten)."""
    payload = dict(outcome.output or {})
    if payload.get("behavior") == "allow":
        payload.setdefault("updatedInput", tool_input)
    return payload


def _empty(reg: Registration) -> Answer:
    return Answer("ok", {}, None, "", reg.event)
