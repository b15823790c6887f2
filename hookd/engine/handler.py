"""The request handler: one decoded call in, one answer meaning out, for every entrance.

stdio ``hook_callback`` and ``hooks/dispatch``, HTTP, host mode and the
testing kit only decode their wire into a :class:`HookCall` (or a
:class:`PermissionCall`) and encode the :class:`~hookd.engine.verdict.Verdict`
(or permission :class:`~hookd.core.policy.Answer`) back. Everything between
happens here, once: input checks, selecting the hooks, running each through
the one :class:`~hookd.engine.executor.Executor` (deadline, cancellation,
exception recovery, output validation, retries), the failure policy, the
merge, session state, and the per-hook stats.

A call that names one trio hook runs it in the caller's own task up to its
first yield (:meth:`Handler.begin`): most hooks never yield, and the answer is
ready without a task switch. Otherwise the caller gets a :class:`Pending` and
awaits :meth:`Handler.finish` (or, for a hook paused inline, drives it with
:meth:`Handler.resume` under the deadline :attr:`Pending.deadline`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Final

import msgspec
import structlog
import trio

from hookd import wire
from hookd.core.context import HookContext
from hookd.core.health import Health, Key, Sick
from hookd.core.policy import Answer, Outcome, describe, resolve
from hookd.core.registry import Registration, Registry
from hookd.engine.dispatch import RunOne, in_order, in_parallel, merged, select
from hookd.engine.executor import Executor, Paused, trio_deadline
from hookd.engine.permission import (
    PERMISSION_ID,
    PermissionContext,
    permission_output,
    permission_registration,
)
from hookd.engine.stats import Stats
from hookd.engine.verdict import Problem, Ran, Verdict
from hookd.events import EVENT_SPECS
from hookd.events.validation import check_input
from hookd.redact import redact_text
from hookd.wire.errors import NO_PERMISSION_CALLBACK_TEXT, UNKNOWN_CALLBACK_TEXT, ErrorKind

if TYPE_CHECKING:
    from hookd.engine.decisions import DecisionLog

__all__ = ["Handler", "HookCall", "Pending", "PermissionCall"]

log = structlog.get_logger("hookd.handler")

SESSION_END: Final = "SessionEnd"
PERMISSION_REQUEST: Final = "PermissionRequest"
CAN_USE_TOOL: Final = "can_use_tool"
#: Answer outcomes that count towards a hook's quarantine: only a hook that did not answer in
#: time costs the agent waiting (an exception, an invalid output, a deny never count).
FAILURES: Final = frozenset({"timeout", "blocked:timeout"})
#: Answer outcomes that do not forgive the earlier timeouts.
NEUTRAL: Final = frozenset({"quarantined", "blocked:quarantined", "cancelled"})

#: Where the handler reads the registry from on each call (a hot reload swaps it).
RegistrySource = Callable[[], Registry | None]


class HookCall(msgspec.Struct):
    """One decoded hook call: which event, its input, which hooks, since when, from whom.

    ``callback_id`` names the one hook the agent chose (``hook_callback``);
    without it hookd selects the event's hooks by their matchers and merges
    their answers. ``arrived`` is ``time.monotonic()`` when the request was
    read: every deadline runs from then. ``ask_permission`` adds the module's
    ``can_use_tool`` as one more hook of a PermissionRequest (for entrances
    whose agent never asks it directly, such as HTTP). ``agent_event`` and
    ``agent_tool`` are the agent's own names, when its dialect renamed them.
    """

    event: str
    input: dict[str, Any]
    tool_use_id: str | None = None
    request_id: wire.RequestId | None = None
    arrived: float = 0.0
    callback_id: str | None = None
    agent: str = "claude"
    ask_permission: bool = False
    agent_event: str | None = None
    agent_tool: str | None = None


class PermissionCall(msgspec.Struct):
    """One ``can_use_tool`` question, decoded."""

    tool_name: str
    input: dict[str, Any]
    tool_use_id: str | None = None
    request_id: wire.RequestId | None = None
    arrived: float = 0.0
    suggestions: list[Any] | None = None
    blocked_path: str | None = None
    decision_reason: str | None = None
    agent_id: str | None = None
    agent: str = "claude"


class Pending:
    """A call that needs awaiting: hooks to run, or one hook paused inline."""

    __slots__ = ("call", "ctx", "paused", "reg", "registry", "selected", "sick", "started")

    def __init__(
        self,
        call: HookCall,
        registry: Registry,
        selected: list[tuple[Registration, str | None]],
        started: float,
    ) -> None:
        self.call = call
        self.registry = registry
        self.selected = selected
        self.started = started
        self.reg: Registration | None = None
        self.ctx: HookContext | None = None
        self.paused: Paused | None = None
        self.sick: Sick | None = None  # the named hook is on its quarantine's leash

    @property
    def deadline(self) -> float:
        """A paused hook's deadline on trio's clock (the caller's cancel scope takes it)."""
        assert self.ctx is not None
        return trio_deadline(self.ctx)


class Handler:
    """Answers hook calls and permission questions from one registry source."""

    def __init__(self, registry: Registry | RegistrySource, *, validate: bool = True) -> None:
        self._fixed = registry if isinstance(registry, Registry) else None
        self._source: RegistrySource = (
            (lambda: registry) if isinstance(registry, Registry) else registry
        )
        self.executor = Executor(validate=validate)
        self.validate = validate
        self.stats = Stats()
        self.stats.stuck = self.executor.stuck_threads  # the live count, not a copy
        self._warned_events: set[str] = set()
        #: Where every answer is noted (the decision log), when the entrance keeps one.
        self.decisions: DecisionLog | None = None

    @property
    def registry(self) -> Registry | None:
        """The registry calls are answered from now."""
        return self._source()

    # -- hook calls ---------------------------------------------------------------------

    async def handle(self, call: HookCall, scope: trio.CancelScope | None = None) -> Verdict | None:
        """The verdict on ``call``; None when ``scope`` was cancelled (withdrawn) first."""
        scope = scope if scope is not None else trio.CancelScope()
        pending: Pending | None = None
        with scope:
            began = self.begin(call)
            if isinstance(began, Verdict):
                return began
            pending = began
            if pending.paused is not None:
                scope.deadline = pending.deadline
                return await self.resume(pending)
            return await self.finish(pending)
        expired = trio.current_time() >= scope.deadline
        if pending is not None and pending.paused is not None and expired:
            return self.expired(pending)
        return None

    def begin(self, call: HookCall) -> Verdict | Pending:
        """Check ``call`` and run it as far as it goes without waiting."""
        started = time.perf_counter()
        registry = self._fixed if self._fixed is not None else self._source()
        if registry is None:
            text = "no hooks loaded (the module failed to load)"
            return self._problem(call, "unavailable", text, None, started)
        if call.callback_id is not None:
            reg = registry.get(call.callback_id)
            if reg is None:
                text = UNKNOWN_CALLBACK_TEXT.format(callback_id=call.callback_id)
                return self._problem(call, "unknown_callback", text, registry, started)
            return self.begin_named(call, registry, started, reg, self.executor.inline(reg))
        problem = self.check_input(call.event, call.input)
        if problem is not None:
            return self._problem(call, "invalid_input", problem, registry, started)
        selected = select(registry, call.event, call.input)
        if call.ask_permission and call.event == PERMISSION_REQUEST:
            perm = self._permission_hook(registry, call.event)
            if perm is not None:
                selected.append((perm, None))
        if not selected:
            return self._done(call, registry, Verdict(call.event), started)
        return Pending(call, registry, selected, started)

    async def finish(self, pending: Pending) -> Verdict:
        """Run a pending call's hooks (in parallel, or in order); their verdict."""
        call, registry = pending.call, pending.registry
        if pending.reg is not None:  # one named hook, not run inline
            ctx = self._context(call, pending.reg, registry, leashed=pending.sick is not None)
            outcome = await self.executor.run(pending.reg, call.input, call.tool_use_id, ctx)
            return self._named(pending, outcome)

        tool_use_id = call.tool_use_id
        if tool_use_id is None:  # a dispatch may carry it in the input only
            found = call.input.get("tool_use_id")
            tool_use_id = found if isinstance(found, str) else None

        health = registry.health

        async def run(reg: Registration, input_data: dict[str, Any]) -> Outcome:
            sick = health.leash(_key(call, reg)) if health else None
            leashed = sick is not None
            ctx = self._context(call, reg, registry, input_data, tool_use_id, leashed=leashed)
            if reg.callback_id != PERMISSION_ID:
                outcome = await self.executor.run(reg, input_data, tool_use_id, ctx)
            else:
                outcome = await self._permission_vote(reg, input_data, tool_use_id, ctx)
            return outcome if sick is None else _on_leash(health, reg, sick, outcome)

        selected = pending.selected
        if registry.has_shadow and any(reg.shadow for reg, _ in selected):
            return await self._with_shadow(pending, run)
        verdict = await _run_selected(call, selected, run)
        return self._done(call, registry, verdict, pending.started)

    async def _with_shadow(self, pending: Pending, run: RunOne) -> Verdict:
        """The real hooks' verdict; the shadow hooks run beside them, their runs kept apart.

        The shadow hooks run in a task of their own: the agent's answer never waits for them.
        When they end first, the call is noted once with both; otherwise the real runs are
        counted now and the call is noted when the shadow hooks end."""
        call, registry = pending.call, pending.registry
        real = [(reg, p) for reg, p in pending.selected if not reg.shadow]
        shadow = [(reg, p) for reg, p in pending.selected if reg.shadow]
        shadow_ran: list[Ran] = []
        answered: list[tuple[Verdict, float]] = []  # the real verdict, once it was given

        async def run_shadow() -> None:
            shadow_ran.extend(await in_parallel(shadow, call.input, run))
            if answered:  # the agent has its answer already: count and note the call now
                verdict, elapsed_ms = answered[0]
                verdict.shadow = shadow_ran
                self._count(call, registry, shadow_ran)
                if self.decisions is not None:
                    self._note(call, registry, verdict, elapsed_ms)

        trio.lowlevel.spawn_system_task(run_shadow, name="hookd.shadow")
        verdict = await _run_selected(call, real, run)
        if len(shadow_ran) == len(shadow):  # the shadow hooks ended first
            verdict.shadow = shadow_ran
            return self._done(call, registry, verdict, pending.started)
        answered.append((verdict, (time.perf_counter() - pending.started) * 1000))
        self._count(call, registry, verdict.ran)
        if verdict.event == SESSION_END:
            _end_session(call, registry)
        return verdict

    async def resume(self, pending: Pending) -> Verdict:
        """Drive a hook paused inline to its end, in the task that began it."""
        assert pending.reg is not None and pending.ctx is not None and pending.paused is not None
        outcome = await self.executor.finish(pending.reg, pending.ctx, pending.paused)
        return self._named(pending, outcome)

    def expired(self, pending: Pending) -> Verdict:
        """The verdict on a hook paused inline whose deadline passed."""
        assert pending.reg is not None and pending.ctx is not None
        return self._named(pending, self.executor.timed_out(pending.reg, pending.ctx))

    def begin_named(
        self,
        call: HookCall,
        registry: Registry,
        started: float,
        reg: Registration,
        inline: bool = True,
    ) -> Verdict | Pending:
        """:meth:`begin` for the hook ``reg`` that ``call`` names, looked up by the caller
        in ``registry``, the one it answers from; ``started`` is its ``time.perf_counter()``
        when it took the call. ``inline``: the hook runs inline (:meth:`Executor.inline`,
        as the stdio reader has checked), here, up to its first yield to trio."""
        problem = self.check_input(reg.event, call.input)
        if problem is not None:
            return self._problem(call, "invalid_input", problem, registry, started)
        sick = registry.health.leash(_key(call, reg)) if registry.health else None
        if not inline:
            pending = _pending_named(call, registry, started, reg, sick=sick)
            return self._shadow_later(pending) if reg.shadow else pending
        ctx = self._context(call, reg, registry, leashed=sick is not None)
        began = self.executor.begin(reg, call.input, call.tool_use_id, ctx, checked=True)
        if isinstance(began, Paused):
            return _pending_named(call, registry, started, reg, ctx=ctx, paused=began, sick=sick)
        assert began is not None
        if sick is not None:
            began = _on_leash(registry.health, reg, sick, began)
        return self._verdict_named(call, registry, reg, began, started)

    def _shadow_later(self, pending: Pending) -> Verdict:
        """A named shadow hook that does not end inline: the agent's empty answer now, the
        hook run to its end (and counted, and noted) in a task of its own.

        (A trio hook that first yields inline ends in the task that began it, as every
        paused hook does; from then on it is not run inline, so its later calls come here.)"""

        async def finish() -> None:
            await self.finish(pending)

        trio.lowlevel.spawn_system_task(finish, name="hookd.shadow")
        reg = pending.reg
        assert reg is not None
        empty = Ran(reg, Answer("ok", {}, None, "", reg.event), 0.0)
        return Verdict(reg.event, [empty], {})

    def _named(self, pending: Pending, outcome: Outcome) -> Verdict:
        """The verdict on a pending named hook that has ended."""
        assert pending.reg is not None
        if pending.sick is not None:
            outcome = _on_leash(pending.registry.health, pending.reg, pending.sick, outcome)
        return self._verdict_named(
            pending.call, pending.registry, pending.reg, outcome, pending.started
        )

    def _verdict_named(
        self,
        call: HookCall,
        registry: Registry,
        reg: Registration,
        outcome: Outcome,
        started: float,
    ) -> Verdict:
        """The verdict on one named hook: its answer as the output (the agent merges).

        A shadow hook's answer is kept apart; the agent gets an empty one."""
        elapsed_ms = (time.perf_counter() - started) * 1000
        answer = resolve(reg, outcome)
        self.stats.hook(reg.callback_id, answer.outcome, elapsed_ms, call.agent)
        if answer.outcome != "ok" or registry.health:
            _health(registry.health, _key(call, reg), reg, answer)
        if reg.event == SESSION_END:
            _end_session(call, registry)
        ran = Ran(reg, answer, elapsed_ms)
        if reg.shadow:
            empty = Ran(reg, Answer("ok", {}, None, "", reg.event), elapsed_ms)
            verdict = Verdict(reg.event, [empty], {}, shadow=[ran])
        else:
            output = answer.payload if answer.payload is not None else {}
            verdict = Verdict(reg.event, [ran], output)
        if self.decisions is not None:
            self._note(call, registry, verdict, elapsed_ms)
        return verdict

    def _done(
        self, call: HookCall, registry: Registry, verdict: Verdict, started: float
    ) -> Verdict:
        """Count the runs; note the answer; free a session's state after its SessionEnd."""
        self._count(call, registry, (*verdict.ran, *verdict.shadow))
        if self.decisions is not None:
            self._note(call, registry, verdict, (time.perf_counter() - started) * 1000)
        if verdict.event == SESSION_END:
            _end_session(call, registry)
        return verdict

    def _count(self, call: HookCall, registry: Registry, runs: Iterable[Ran]) -> None:
        """Count each run in the per-hook stats and towards its hook's health."""
        health = registry.health
        for ran in runs:
            self.stats.hook(ran.reg.callback_id, ran.answer.outcome, ran.elapsed_ms, call.agent)
            if ran.answer.outcome != "ok" or health:
                _health(health, _key(call, ran.reg), ran.reg, ran.answer)

    def _problem(
        self,
        call: HookCall,
        kind: Any,
        message: str,
        registry: Registry | None,
        started: float,
    ) -> Verdict:
        log.warning(
            "request.refused", request_id=call.request_id, reason=kind, error=redact_text(message)
        )
        verdict = Verdict(call.event, problem=Problem(kind, message))
        if self.decisions is not None:
            self._note(call, registry, verdict, (time.perf_counter() - started) * 1000)
        return verdict

    def _note(
        self, call: HookCall, registry: Registry | None, verdict: Verdict, elapsed_ms: float
    ) -> None:
        """One answer for the decision log: a tuple of references, nothing computed."""
        assert self.decisions is not None
        version, redact = ("", ()) if registry is None else (registry.version, registry.redact)
        self.decisions.note(
            (time.time(), verdict.event, call.agent, call.input, call.request_id, verdict,
             version, redact, elapsed_ms)
        )  # fmt: skip

    def _context(
        self,
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
        return HookContext(
            request_id=call.request_id,
            callback_id=reg.callback_id,
            event=reg.event,
            tool_use_id=tool_use_id if tool_use_id is not None else call.tool_use_id,
            timeout_s=timeout_s,
            state=registry.state.for_session(session_id),
            arrived=call.arrived or None,
            agent=call.agent,
            agent_event=call.agent_event,
            agent_tool=call.agent_tool,
            session_id=session_id,
        )

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

    def _permission_hook(self, registry: Registry, event: str) -> Registration | None:
        fn = registry.can_use_tool
        if fn is None:
            return None
        return permission_registration(fn, event, registry.default_timeout_s)

    def check_input(self, event: str, input_data: dict[str, Any]) -> str | None:
        """What is wrong with a hook's input, or None (always None with validation off)."""
        if not self.validate:
            return None
        if event not in EVENT_SPECS and event not in self._warned_events:
            self._warned_events.add(event)
            log.warning("event.unknown", _event=event, note="input passed through unchecked")
        return check_input(event, input_data)

    def unencodable(self, callback_id: str | None, exc: Exception) -> Answer:
        """The answer in place of a hook output that does not encode as JSON."""
        message = f"output is not JSON-serialisable: {exc}"
        registry = self._source()
        reg = registry.get(callback_id) if registry is not None and callback_id else None
        if reg is None:
            return Answer("invalid_output", error_kind=ErrorKind.INTERNAL_ERROR, message=message)
        return resolve(reg, Outcome("invalid_output", message=message))

    # -- permission questions -----------------------------------------------------------

    async def permission(
        self, call: PermissionCall, scope: trio.CancelScope | None = None
    ) -> Answer | None:
        """The answer to a ``can_use_tool`` question; None when withdrawn."""
        registry = self._source()
        fn = registry.can_use_tool if registry is not None else None
        if registry is None or fn is None:
            return Answer(
                "unsupported",
                error_kind=ErrorKind.UNSUPPORTED_REQUEST,
                message=NO_PERMISSION_CALLBACK_TEXT,
            )
        started = time.perf_counter()
        reg = permission_registration(fn, CAN_USE_TOOL, registry.default_timeout_s)
        health = registry.health
        key: Key = (call.agent, "", reg.callback_id)  # the question names no session
        sick = health.leash(key) if health else None
        timeout_s = reg.timeout_s if sick is None else min(reg.timeout_s, health.policy.leash_s)
        ctx = PermissionContext(
            suggestions=list(call.suggestions or []),
            blocked_path=call.blocked_path,
            decision_reason=call.decision_reason,
            agent_id=call.agent_id,
            request_id=call.request_id,
            callback_id=reg.callback_id,
            event=CAN_USE_TOOL,
            tool_use_id=call.tool_use_id,
            timeout_s=timeout_s,
            state={},
            arrived=call.arrived or None,
            agent=call.agent,
        )
        data = {"tool_name": call.tool_name, "tool_input": call.input}
        outcome = await self.executor.run(reg, data, call.tool_use_id, ctx, scope)
        if sick is not None:
            outcome = _on_leash(health, reg, sick, outcome)
        if outcome.kind == "cancelled":
            return None
        elapsed_ms = round((time.perf_counter() - started) * 1000, 3)
        self.stats.hook(reg.callback_id, outcome.kind, elapsed_ms, call.agent)
        answer = _permission_answer(reg, outcome, call.input)
        if outcome.kind != "ok" or health:
            _health(health, key, reg, answer)
        if self.decisions is not None:
            verdict = Verdict(CAN_USE_TOOL, [Ran(reg, answer, elapsed_ms)], answer.payload or {})
            data = {"tool_name": call.tool_name, "tool_input": call.input}
            hook_call = HookCall(CAN_USE_TOOL, data, call.tool_use_id, call.request_id)
            hook_call.agent = call.agent
            self._note(hook_call, registry, verdict, elapsed_ms)
        return answer


def _key(call: HookCall, reg: Registration) -> Key:
    """Whose health record a call counts towards: its agent's session's, for this hook."""
    session_id = call.input.get("session_id")
    return (call.agent, session_id if isinstance(session_id, str) else "", reg.callback_id)


def _on_leash(health: Health, reg: Registration, sick: Sick, outcome: Outcome) -> Outcome:
    """A quarantined hook's outcome: its answer within the leash, else ``quarantined``."""
    if outcome.kind != "timeout":
        return outcome
    refused = health.refusal(sick, health.policy.leash_s)
    log.warning("hook.refused", callback_id=reg.callback_id, reason=refused)
    return Outcome("quarantined", message=refused)


def _health(health: Health, key: Key, reg: Registration, answer: Answer) -> None:
    """Count a hook's timeout towards its quarantine in the call's session, or forgive its
    timeouts when it answered."""
    outcome = answer.outcome
    if outcome in FAILURES:
        sick = health.failed(key, describe(outcome, answer.message))
        if sick is not None:
            log.warning(
                "hook.quarantined",
                callback_id=reg.callback_id,
                name=reg.name,
                agent=key[0],
                session_id=key[1],
                reason=sick.reason,
                last=sick.last,
                cooldown_s=sick.cooldown_s,
            )
    elif outcome not in NEUTRAL:
        health.passed(key)


def _permission_answer(reg: Registration, outcome: Outcome, tool_input: dict[str, Any]) -> Answer:
    """``can_use_tool``'s answer: its allow or deny, an abort's deny, or the failure's error."""
    if outcome.kind == "ok":
        return Answer("ok", payload=_filled(outcome, tool_input), event=CAN_USE_TOOL)
    if outcome.kind == "abort":  # HookAbortError: deny, and stop the run
        payload = {"behavior": "deny", "message": outcome.message, "interrupt": True}
        return Answer("aborted", payload=payload, event=CAN_USE_TOOL)
    return resolve(reg, outcome)  # an error answer of the failure's kind


async def _run_selected(
    call: HookCall, selected: list[tuple[Registration, str | None]], run: RunOne
) -> Verdict:
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


def _pending_named(
    call: HookCall,
    registry: Registry,
    started: float,
    reg: Registration,
    *,
    ctx: HookContext | None = None,
    paused: Paused | None = None,
    sick: Sick | None = None,
) -> Pending:
    pending = Pending(call, registry, [(reg, None)], started)
    pending.reg, pending.ctx, pending.paused, pending.sick = reg, ctx, paused, sick
    return pending


def _end_session(call: HookCall, registry: Registry) -> None:
    """Free the state of the session a SessionEnd call named."""
    session_id = call.input.get("session_id")
    registry.end_session(session_id if isinstance(session_id, str) else None)
