"""The kernel: one decoded call in, one verdict out, for every entrance.

stdio ``hook_callback``, ``hooks/dispatch`` and ``can_use_tool``, HTTP, every
agent's dialect, host mode and the testing kit decode their wire into a
:class:`~hookd.engine.call.HookCall` (or :class:`~hookd.engine.call.PermissionCall`),
call :meth:`Kernel.handle`, and encode the :class:`~hookd.engine.verdict.Verdict`.
Nothing else: what happens between is here, once, in this order:

1. the call's layers admit it (:class:`~hookd.engine.layers.Layer`: the registry is
   loaded, the named hook exists, the input is valid for its event);
2. the hooks run (:mod:`hookd.engine.runs`): each under the quarantine's leash when it
   is quarantined in this session, through the one
   :class:`~hookd.engine.executor.Executor` (deadline, exceptions, output checked where
   it is produced), its failure policy applied; several are merged, shadow hooks run
   beside them, never waited for;
3. the layers settle the verdict (the session's notes, the merged output checked,
   a SessionEnd frees the session's state);
4. every observer (:mod:`hookd.engine.observers`: per-hook stats and quarantine
   counts, the decision log, the request log line) sees the finished call once.

A fault in hookd itself anywhere in this becomes the verdict's ``internal`` problem:
an entrance never catches one.

The one call has a fast path, used by the stdio reader: :meth:`Kernel.answer` runs a
call that names one trio hook in the caller's task up to the hook's first yield (most
never yield: the verdict is ready without a task switch), and hands back a
:class:`~hookd.engine.runs.Waiting` otherwise, which :meth:`Kernel.proceed` (or, at its
deadline, :meth:`Kernel.expired`) takes to its verdict. :meth:`Kernel.handle` is those
three composed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Final

import structlog
import trio

from hookd.core.registry import Registration, Registry
from hookd.engine.call import CAN_USE_TOOL, HookCall, PermissionCall
from hookd.engine.decisions import DecisionLog
from hookd.engine.dispatch import select
from hookd.engine.executor import Executor
from hookd.engine.layers import Admit, InputCheck, Layer, OutputCheck, SessionState, Settle
from hookd.engine.observers import DecisionNotes, Finished, HookCounts, Observer
from hookd.engine.permission import permission_registration
from hookd.engine.runs import Runs, Waiting
from hookd.engine.stats import Stats
from hookd.engine.verdict import Problem, Ran, Verdict
from hookd.redact import redact_text
from hookd.wire.errors import NO_PERMISSION_CALLBACK_TEXT, UNKNOWN_CALLBACK_TEXT

__all__ = ["Kernel", "RegistrySource", "Waiting"]

log = structlog.get_logger("hookd.handler")

PERMISSION_REQUEST: Final = "PermissionRequest"

#: Where the kernel reads the registry from on each call (a hot reload swaps it).
RegistrySource = Callable[[], Registry | None]


class Kernel:
    """Answers hook calls and permission questions from one registry source.

    ``layers`` come after the built-in ones (input check first; output check and
    session state last); ``observers`` after the built-in per-hook counts."""

    def __init__(
        self,
        registry: Registry | RegistrySource,
        *,
        validate: bool = True,
        layers: Sequence[Layer] = (),
        observers: Sequence[Observer] = (),
    ) -> None:
        self._fixed = registry if isinstance(registry, Registry) else None
        self._source: RegistrySource = (
            registry if not isinstance(registry, Registry) else (lambda: self._fixed)
        )
        self.validate = validate
        self.executor = Executor(validate=validate)
        self.stats = Stats()
        self.stats.stuck = self.executor.stuck_threads  # the live count, not a copy
        self.input_check = InputCheck(validate)
        self.layers: list[Layer] = [
            self.input_check, *layers, OutputCheck(validate), SessionState()
        ]  # fmt: skip
        # only the layers that do something at each step are called (the usual call: one)
        self._admitters = [
            x.admit for x in self.layers if type(x).admit is not Layer.admit and x.acts
        ]  # fmt: skip
        self._admit: Admit | None = (
            None if not self._admitters
            else self._admitters[0] if len(self._admitters) == 1
            else self._admit_each
        )  # fmt: skip
        self._settlers = [x for x in self.layers if type(x).settle is not Layer.settle and x.acts]
        # the layers' settle steps, per event, for named and for merged calls (found once each)
        self._named_plan: dict[str, list[Settle]] = {}
        self._merged_plan: dict[str, list[Settle]] = {}
        self._observers: list[Observer] = [HookCounts(self.stats), *observers]
        self._tell = [o.finished for o in self._observers]
        self._runs = Runs(self.executor, self._finish)
        self._decisions: DecisionLog | None = None

    @property
    def registry(self) -> Registry | None:
        """The registry calls are answered from now."""
        return self._source()

    @property
    def observers(self) -> tuple[Observer, ...]:
        """Who is told of every finished call, in order."""
        return tuple(self._observers)

    def observe(self, observer: Observer) -> None:
        """Add an observer (told of every call finished from now on)."""
        self._observers.append(observer)
        self._tell.append(observer.finished)

    @property
    def decisions(self) -> DecisionLog | None:
        """The decision log every answer is noted in, when the entrance keeps one."""
        return self._decisions

    @decisions.setter
    def decisions(self, decisions: DecisionLog | None) -> None:
        self._observers = [o for o in self._observers if not isinstance(o, DecisionNotes)]
        self._tell = [o.finished for o in self._observers]
        self._decisions = decisions
        if decisions is not None:
            self.observe(DecisionNotes(decisions))

    # -- the one call -------------------------------------------------------------------

    async def handle(
        self, call: HookCall | PermissionCall, scope: trio.CancelScope | None = None
    ) -> Verdict | None:
        """The verdict on ``call``; None when ``scope`` was cancelled (withdrawn) first."""
        scope = scope if scope is not None else trio.CancelScope()
        if isinstance(call, PermissionCall):
            return await self._permission(call, scope)  # the executor enters the scope
        waiting: Waiting | None = None
        with scope:
            began = self.answer(call)
            if isinstance(began, Verdict):
                return began
            waiting = began
            if waiting.paused is not None:
                scope.deadline = waiting.deadline
            return await self.proceed(waiting)
        paused = waiting is not None and waiting.paused is not None
        if paused and trio.current_time() >= scope.deadline:
            assert waiting is not None
            return self.expired(waiting)
        return None

    def answer(self, call: HookCall, inline: Registration | None = None) -> Verdict | Waiting:
        """Admit ``call`` and run it as far as it goes without waiting.

        ``inline``: the registration of the hook ``call`` names, already looked up in the
        kernel's own (fixed) registry by a caller that checked it runs inline (the stdio
        reader: :meth:`Executor.inline`)."""
        started = time.perf_counter()
        registry = self._fixed if self._fixed is not None else self._source()
        try:
            if registry is None:
                gone = Problem("unavailable", "no hooks loaded (the module failed to load)")
                return self._problem(call, registry, gone, started)
            if call.callback_id is not None:  # one named hook: the stdio reader's fast path
                reg = inline if inline is not None else registry.get(call.callback_id)
                if reg is None:
                    text = UNKNOWN_CALLBACK_TEXT.format(callback_id=call.callback_id)
                    return self._problem(call, registry, Problem("unknown_callback", text), started)
                event = reg.event
                if self._admit is not None:
                    refused = self._admit(call, event)
                    if refused is not None:
                        return self._problem(call, registry, refused, started)
                began = self._runs.named(call, registry, reg, started, inline is not None)
                if type(began) is not Verdict:
                    return began
                # _settle, written out: this runs for every call the stdio reader answers
                settlers = self._named_plan.get(event)
                if settlers is None:
                    settlers = self._settlers_of(event, named=True)
                if settlers:
                    for settle in settlers:
                        began = settle(call, registry, began)
                    elapsed_ms = (time.perf_counter() - started) * 1000
                else:  # the hook's time is the call's: both run from ``started``
                    elapsed_ms = began.ran[0].elapsed_ms
                done = Finished(call, began, registry, elapsed_ms)
                for tell in self._tell:
                    tell(done)
                return began
            return self._selected(call, registry, started)
        except Exception as exc:  # a fault in hookd itself: the call's problem, once
            return self._internal(call, registry, exc, started)

    async def proceed(self, waiting: Waiting) -> Verdict:
        """Run a waiting call to its verdict, in the task that began it."""
        try:
            ran = await self._runs.run(waiting)
            named = waiting.reg is not None
            if isinstance(ran, Verdict):
                return self._settle(waiting.call, waiting.registry, ran, waiting.started, named)
            # answered while shadow hooks run: they finish the call when they end
            ran.verdict = self._settled(waiting.call, waiting.registry, ran.verdict, named)
            return ran.verdict
        except Exception as exc:  # a fault in hookd itself
            return self._internal(waiting.call, waiting.registry, exc, waiting.started)

    def expired(self, waiting: Waiting) -> Verdict:
        """The verdict on a hook paused inline whose deadline passed."""
        verdict = self._runs.expired(waiting)
        return self._settle(waiting.call, waiting.registry, verdict, waiting.started, named=True)

    # -- the steps ----------------------------------------------------------------------

    def _selected(self, call: HookCall, registry: Registry, started: float) -> Verdict | Waiting:
        """A call without a named hook: waiting with the hooks its event's matchers select
        (and ``can_use_tool``, when asked); the verdict when none is, or it is refused."""
        if self._admit is not None:
            problem = self._admit(call, call.event)
            if problem is not None:
                return self._problem(call, registry, problem, started)
        selected = select(registry, call.event, call.input)
        if call.ask_permission and call.event == PERMISSION_REQUEST:
            fn = registry.can_use_tool
            if fn is not None:
                selected.append(
                    (permission_registration(fn, call.event, registry.default_timeout_s), None)
                )
        if not selected:
            return self._settle(call, registry, Verdict(call.event), started, named=False)
        return Waiting(call, registry, selected, started)

    def _admit_each(self, call: HookCall, event: str) -> Problem | None:
        """Every admitting layer's word on ``call``, in order: the first refusal, or None."""
        for admit in self._admitters:
            problem = admit(call, event)
            if problem is not None:
                return problem
        return None

    def _settle(
        self, call: HookCall, registry: Registry, verdict: Verdict, started: float, named: bool
    ) -> Verdict:
        """The layers' last word on the verdict; then every observer sees the call."""
        verdict = self._settled(call, registry, verdict, named)
        self._finish(call, registry, verdict, started)
        return verdict

    def _settled(
        self, call: HookCall, registry: Registry, verdict: Verdict, named: bool
    ) -> Verdict:
        """The layers' last word on the verdict (a ``named`` call's: one hook's answer)."""
        for settle in self._settlers_of(verdict.event, named=named):
            verdict = settle(call, registry, verdict)
        return verdict

    def _settlers_of(self, event: str, *, named: bool) -> list[Settle]:
        """The settle steps of the layers with something to do for a verdict on ``event``."""
        plan = self._named_plan if named else self._merged_plan
        found = plan.get(event)
        if found is None:
            found = [
                x.settle for x in self._settlers
                if (x.events is None or event in x.events) and not (named and x.merged_only)
            ]  # fmt: skip
            if len(plan) < 1024:  # events are few; an agent's odd name is not kept
                plan[event] = found
        return found

    def _finish(
        self, call: HookCall, registry: Registry | None, verdict: Verdict, started: float
    ) -> None:
        done = Finished(call, verdict, registry, (time.perf_counter() - started) * 1000)
        for tell in self._tell:
            tell(done)

    def refuse(self, call: HookCall, problem: Problem) -> Verdict:
        """The verdict on a call its entrance could not decode (``call`` says what it knows):
        refused, logged and recorded as every other problem is."""
        return self._problem(call, self._source(), problem, time.perf_counter())

    def _problem(
        self, call: HookCall, registry: Registry | None, problem: Problem, started: float
    ) -> Verdict:
        log.warning(
            "request.refused",
            request_id=call.request_id,
            reason=problem.kind,
            error=redact_text(problem.message),
        )
        verdict = Verdict(call.event, problem=problem)
        self._finish(call, registry, verdict, started)
        return verdict

    def _internal(
        self, call: HookCall, registry: Registry | None, exc: Exception, started: float
    ) -> Verdict:
        log.exception("internal.error", request_id=call.request_id)
        problem = Problem("internal", f"internal error: {type(exc).__name__}")
        verdict = Verdict(call.event, problem=problem)
        self._finish(call, registry, verdict, started)
        return verdict

    # -- permission questions -----------------------------------------------------------

    async def _permission(
        self, question: PermissionCall, scope: trio.CancelScope
    ) -> Verdict | None:
        """``can_use_tool``'s verdict: its allow or deny as the one run's answer."""
        started = time.perf_counter()
        call = question.as_hook_call()
        registry = self._source()
        try:
            fn = registry.can_use_tool if registry is not None else None
            if registry is None or fn is None:
                problem = Problem("unsupported", NO_PERMISSION_CALLBACK_TEXT)
                verdict = Verdict(CAN_USE_TOOL, problem=problem)
                self._finish(call, registry, verdict, started)
                return verdict
            reg = permission_registration(fn, CAN_USE_TOOL, registry.default_timeout_s)
            answer = await self._runs.ask(question, registry, reg, scope)
            if answer is None:
                return None  # withdrawn
            ran = Ran(reg, answer, round((time.perf_counter() - started) * 1000, 3))
            verdict = Verdict(CAN_USE_TOOL, [ran], answer.payload or {})
            self._finish(call, registry, verdict, started)
            return verdict
        except Exception as exc:  # a fault in hookd itself
            return self._internal(call, registry, exc, started)
