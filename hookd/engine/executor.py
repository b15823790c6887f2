"""Run one callback: its own deadline, every exception recovered, output checked.

This is the one way hookd runs user code. The executor never lets a callback's
failure escape: exceptions (``SystemExit``, ``KeyboardInterrupt`` and an input
that will not convert to the hook's type included) become an
:class:`~hookd.core.policy.Outcome`, with the traceback in the log. Only trio's
own cancellation passes through: it means the CLI withdrew the request or hookd
is shutting down.

A trio hook without retries runs in the caller's own task up to its first
yield (:meth:`Executor.begin`): most never yield, and their outcome comes back
without a cancel scope or a task switch. One that yields is :class:`Paused`,
and the caller drives it on under its deadline. Every deadline is the
context's (:attr:`HookContext.deadline`): the one the hook is shown.
"""

from __future__ import annotations

import contextvars
import inspect
import time
import types
from collections.abc import Generator, Mapping
from typing import Any, Final

import msgspec
import structlog
import trio

from hookd.core.context import MAX_MARGIN_S, HookContext, effective_timeout
from hookd.core.limits import MAX_OUTPUT_BYTES
from hookd.core.policy import Outcome
from hookd.core.registry import Registration
from hookd.engine.aio import run_on_asyncio
from hookd.engine.permission import PERMISSION_ID, permission_payload
from hookd.engine.threads import HOOK_THREAD_LIMIT, STUCK_LIMIT, THREAD_LIMIT, Threads, thread_key
from hookd.engine.tracebacks import user_traceback
from hookd.engine.watchdog import HookStuckError, resume, step
from hookd.errors import HookAbortError, HookdError, InvalidOutputError, RetryableHookError
from hookd.events.validation import prepare_output, sdk_renamed

__all__ = [
    "HOOK_THREAD_LIMIT",
    "MAX_MARGIN_S",
    "STUCK_LIMIT",
    "THREAD_LIMIT",
    "Executor",
    "InputTypeError",
    "Paused",
    "effective_timeout",
    "encoding_problem",
]

log = structlog.get_logger("hookd.executor")

_json_encode: Final = msgspec.json.Encoder().encode
_COROUTINE: Final = types.CoroutineType
_copy_context: Final = contextvars.copy_context
_UNENCODABLE: Final = (TypeError, ValueError, OverflowError, RecursionError)


class InputTypeError(HookdError):
    """The input does not convert to the type the hook's first parameter names."""


class Paused:
    """A hook run inline that yielded to trio before it was done: what it takes to go on."""

    __slots__ = ("awaitable", "context", "yielded")

    def __init__(self, awaitable: Any, yielded: Any, context: contextvars.Context | None) -> None:
        self.awaitable = awaitable
        self.yielded = yielded
        self.context = context  # None: not a coroutine, not started yet


class Executor:
    """Runs callbacks with their timeouts, retries and output validation."""

    def __init__(self, *, validate: bool = True) -> None:
        self.validate = validate
        self._threads = Threads()
        self._waits: set[str] = set()  # trio hooks seen yielding: they get a task of their own

    @property
    def stuck_threads(self) -> dict[str, int]:
        """Per callback id, its calls still running in a thread past their deadline (live)."""
        return self._threads.stuck_by_hook

    def inline(self, reg: Registration) -> bool:
        """Whether :meth:`begin` runs ``reg`` in the caller's task (a trio hook, no retries,
        never seen waiting: a hook that waits would hand its caller's task over on every call)."""
        return reg.runner == "trio" and reg.retry is None and reg.callback_id not in self._waits

    def begin(
        self,
        reg: Registration,
        input_data: dict[str, Any],
        tool_use_id: str | None,
        ctx: HookContext,
        checked: bool = False,
    ) -> Outcome | Paused | None:
        """Run ``reg`` inline, up to its first yield to trio; None if it does not run inline.

        A :class:`Paused` hook goes on through :meth:`finish`, under a cancel
        scope with the context's deadline that was entered before this call.
        ``checked``: the caller has just asked :meth:`inline`.
        """
        if not checked and not self.inline(reg):
            return None
        try:
            arg = input_data if reg.input_type is None else _typed_input(reg, input_data)
            awaitable = reg.callback(arg, tool_use_id, ctx)
            if type(awaitable) is not _COROUTINE and not inspect.iscoroutine(awaitable):
                return Paused(awaitable, None, None)
            context = _copy_context()
            done, value = step(awaitable, ctx.deadline, context.run)
        except BaseException as exc:
            return _caught(reg, ctx, exc)
        if done:
            return self.check(reg, value)
        self._waits.add(reg.callback_id)
        return Paused(awaitable, value, context)

    @types.coroutine
    def finish(
        self, reg: Registration, ctx: HookContext, paused: Paused
    ) -> Generator[Any, Any, Outcome]:
        """Drive a :class:`Paused` hook to its end; its outcome. Raises only trio's cancellation."""
        try:
            if paused.context is None:  # an awaitable that is not a coroutine: not watched
                result = yield from paused.awaitable.__await__()
            else:
                result = yield from resume(
                    paused.awaitable, paused.yielded, ctx.deadline, paused.context
                )
        except BaseException as exc:
            return _caught(reg, ctx, exc)
        return self.check(reg, result)

    async def run(
        self,
        reg: Registration,
        input_data: dict[str, Any],
        tool_use_id: str | None,
        ctx: HookContext,
        scope: trio.CancelScope | None = None,
    ) -> Outcome:
        """Run ``reg`` on ``input_data`` until the context's deadline; how it ended.

        Never raises but trio's own cancellation. A caller that may withdraw the
        request passes its own ``scope``: cancelling it before the deadline
        gives a ``cancelled`` outcome, which is never answered.
        """
        scope = scope if scope is not None else trio.CancelScope()
        # the scope is entered first: a hook that yields has opened its own scopes inside it
        with scope:
            began = self.begin(reg, input_data, tool_use_id, ctx)
            if isinstance(began, Outcome):
                return began
            scope.deadline = trio_deadline(ctx)
            if began is not None:
                return await self.finish(reg, ctx, began)
            return await self._run_task(reg, input_data, tool_use_id, ctx)
        ctx.cancel()
        if trio.current_time() < scope.deadline:
            return Outcome("cancelled", message="withdrawn")
        return self.timed_out(reg, ctx)

    @staticmethod
    def timed_out(reg: Registration, ctx: HookContext) -> Outcome:
        """The outcome of a hook cancelled at its deadline."""
        ctx.cancel()
        timeout_s = effective_timeout(ctx.timeout_s)
        log.warning("hook.timed_out", callback_id=reg.callback_id, timeout_s=timeout_s)
        return Outcome("timeout", message=f"no answer within {timeout_s:g}s")

    def check(self, reg: Registration, result: Any) -> Outcome:
        """Normalise a callback's return value, then check it: JSON and within the size
        limit (:func:`encoding_problem`), and valid for its event. Checked here, where the
        output is produced, every entrance and every record see the same outcome."""
        if reg.callback_id == PERMISSION_ID:
            try:
                payload = permission_payload(result)
            except InvalidOutputError as exc:
                return Outcome("invalid_output", message=str(exc))
            problem = encoding_problem(payload)
            if problem is not None:
                return Outcome("invalid_output", message=problem)
            return Outcome("ok", payload)
        if result is None:
            return Outcome("ok", {})
        if type(result) is not dict:
            if not isinstance(result, Mapping):
                kind = type(result).__name__
                return Outcome("invalid_output", message=f"expected a dict or None, got {kind}")
            result = dict(result)
        if "continue_" in result or "async_" in result:
            result = sdk_renamed(result)
        problem = encoding_problem(result)
        if problem is not None:
            return Outcome("invalid_output", message=problem)
        if not self.validate:
            return Outcome("ok", result)
        try:
            return Outcome("ok", prepare_output(reg.event, result))
        except InvalidOutputError as exc:
            return Outcome("invalid_output", message=str(exc))
        except Exception as exc:  # pragma: no cover - an encodable output converts
            text = f"{type(exc).__name__}: {_safe_str(exc) or 'no details'}"
            return Outcome("invalid_output", message=f"output cannot be checked ({text})")

    async def _run_task(
        self,
        reg: Registration,
        input_data: dict[str, Any],
        tool_use_id: str | None,
        ctx: HookContext,
    ) -> Outcome:
        """A hook that does not run inline (a thread, asyncio, retries, a trio hook that waits)."""
        if reg.runner == "thread":
            refused = self._threads.refusal(thread_key(reg, ctx))
            if refused is not None:
                log.warning("hook.refused", callback_id=reg.callback_id, reason=refused)
                return Outcome("timeout", message=refused)
        try:
            arg = _typed_input(reg, input_data)
            result = await self._attempts(reg, arg, tool_use_id, ctx)
        except BaseException as exc:
            return _caught(reg, ctx, exc)
        return self.check(reg, result)

    async def _attempts(
        self, reg: Registration, arg: Any, tool_use_id: str | None, ctx: HookContext
    ) -> Any:
        if reg.retry is None:
            return await self._call(reg, arg, tool_use_id, ctx)
        from hookd.engine.retry import retrying

        async for attempt in retrying(reg, ctx):
            with attempt:
                return await self._call(reg, arg, tool_use_id, ctx)
        raise RetryableHookError("retries exhausted")  # pragma: no cover - reraise=True

    async def _call(
        self, reg: Registration, arg: Any, tool_use_id: str | None, ctx: HookContext
    ) -> Any:
        match reg.runner:
            case "trio":
                awaitable = reg.callback(arg, tool_use_id, ctx)
                if inspect.iscoroutine(awaitable):
                    return await _watched(awaitable, ctx.deadline)
                return await awaitable
            case "asyncio":
                return await run_on_asyncio(reg.callback, arg, tool_use_id, ctx)
            case _:
                return await self._threads.run(reg, arg, tool_use_id, ctx)


def trio_deadline(ctx: HookContext) -> float:
    """The context's deadline on trio's clock (a call that starts now: its full timeout,
    so that trio's fake clocks in tests see exact figures)."""
    if ctx.arrived is None:
        return trio.current_time() + effective_timeout(ctx.timeout_s)
    return trio.current_time() + (ctx.deadline - time.monotonic())


@types.coroutine
def _watched(coro: Any, deadline: float) -> Generator[Any, Any, Any]:
    done, out = step(coro, deadline, _call_one)
    if done:
        return out
    return (yield from resume(coro, out, deadline))


def _call_one(fn: Any, arg: Any) -> Any:
    return fn(arg)


def _typed_input(reg: Registration, input_data: dict[str, Any]) -> Any:
    if reg.input_type is None:
        return input_data
    try:
        return msgspec.convert(input_data, reg.input_type)
    except msgspec.ValidationError as exc:
        name = getattr(reg.input_type, "__name__", repr(reg.input_type))
        raise InputTypeError(f"the input does not convert to {name}: {exc}") from None


def _caught(reg: Registration, ctx: HookContext, exc: BaseException) -> Outcome:
    """The outcome of a hook that raised ``exc``; trio's cancellation is raised again."""
    if _is_cancellation(exc):
        ctx.cancel()
        raise exc
    return _failed(reg, ctx, exc)


def _is_cancellation(exc: BaseException) -> bool:
    if isinstance(exc, trio.Cancelled):
        return True
    if isinstance(exc, BaseExceptionGroup):
        rest = exc.split(trio.Cancelled)[1]
        return rest is None
    return False


def _failed(reg: Registration, ctx: HookContext, exc: BaseException) -> Outcome:
    """Classify a hook's exception; log the traceback of real failures.

    The wire gets ``str(exc)`` (the type name if it is empty), as the SDK sends it.
    """
    match exc:
        case HookAbortError():
            return Outcome("abort", message=exc.reason or "aborted by hook")
        case InvalidOutputError():  # raised by a hook that parses output itself
            return Outcome("invalid_output", message=str(exc))
        case InputTypeError():
            log.warning("hook.input_type", callback_id=reg.callback_id, error=str(exc))
            return Outcome("exception", message=str(exc))
        case HookStuckError():
            ctx.cancel()
            timeout_s = effective_timeout(ctx.timeout_s)
            log.error("hook.stuck", callback_id=reg.callback_id, timeout_s=timeout_s)
            if reg.runner == "thread":
                text = f"ran past {timeout_s:g}s in its thread (interrupted)"
            else:
                text = f"held the event loop past {timeout_s:g}s without awaiting (interrupted)"
            return Outcome("timeout", message=text)
    text = user_traceback(exc)
    log.error(
        "hook.raised",
        request_id=ctx.request_id,
        callback_id=reg.callback_id,
        _event=reg.event,
        error=type(exc).__name__,
        traceback=text,
    )
    message = _safe_str(exc) or type(exc).__name__
    if isinstance(exc, RuntimeError) and "no running event loop" in message:
        message += " (this hook looks written for asyncio: mark it with runner='asyncio')"
    return Outcome("exception", message=message)


def encoding_problem(result: Any) -> str | None:
    """Why ``result`` cannot go on any wire (not JSON, or past the size limit), or None."""
    try:
        size = len(_json_encode(result))
    except _UNENCODABLE as exc:
        return f"output is not JSON-serialisable: {_safe_str(exc) or type(exc).__name__}"
    if size <= MAX_OUTPUT_BYTES:
        return None
    return f"the output is {size} bytes as JSON; the limit is {MAX_OUTPUT_BYTES} bytes"


def _safe_str(exc: BaseException) -> str:
    """``str(exc)``, or a stand-in when the exception's own ``__str__`` fails."""
    try:
        return str(exc)
    except Exception:
        return ""  # the caller falls back to the type name
