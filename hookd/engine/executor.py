"""Run one callback: its own deadline, every exception recovered, output checked.

The executor never lets a callback's failure escape: exceptions (``SystemExit``
and ``KeyboardInterrupt`` included) become an :class:`~hookd.core.policy.Outcome`,
with the traceback in the log. Only trio's own cancellation passes through: it
means the CLI withdrew the request or hookd is shutting down.
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

from hookd.core.context import HookContext
from hookd.core.policy import Outcome
from hookd.core.registry import Registration
from hookd.engine.aio import run_on_asyncio
from hookd.engine.tracebacks import user_traceback
from hookd.engine.watchdog import HookStuckError, resume, step, watched
from hookd.errors import HookAbortError, InvalidOutputError, RetryableHookError
from hookd.events.validation import prepare_output, sdk_renamed

__all__ = ["Executor", "Paused", "effective_timeout"]

log = structlog.get_logger("hookd.executor")

#: hookd answers this much before the CLI's own deadline for the same hook.
MAX_MARGIN_S: Final = 0.5
THREAD_LIMIT: Final = 64


def effective_timeout(timeout_s: float) -> float:
    """hookd's deadline for a hook whose CLI-side timeout is ``timeout_s``.

    The answer must reach the CLI before the CLI gives up, so hookd stops
    waiting 10 % earlier (at most half a second earlier).
    """
    return timeout_s - min(MAX_MARGIN_S, 0.1 * timeout_s)


class Paused:
    """A hook run inline that yielded to trio before it was done: what it takes to go on."""

    __slots__ = ("awaitable", "context", "deadline", "yielded")

    def __init__(
        self, awaitable: Any, yielded: Any, deadline: float, context: contextvars.Context | None
    ) -> None:
        self.awaitable = awaitable
        self.yielded = yielded
        self.deadline = deadline
        self.context = context  # None: not a coroutine, not started yet


class Executor:
    """Runs callbacks with their timeouts, retries and output validation."""

    def __init__(self, *, validate: bool = True) -> None:
        self.validate = validate
        self._threads = trio.CapacityLimiter(THREAD_LIMIT)

    async def run(
        self,
        reg: Registration,
        input_data: dict[str, Any],
        tool_use_id: str | None,
        ctx: HookContext,
        scope: trio.CancelScope | None = None,
        *,
        arrived: float | None = None,
    ) -> Outcome:
        """Run ``reg`` on ``input_data``; return how it ended.

        Never raises but trio's own cancellation. A caller that may withdraw the
        request passes its own ``scope`` (one cancel scope per request is cheaper
        than two): cancelling it before the deadline gives a ``cancelled``
        outcome, which is never answered. The deadline runs from ``arrived``
        (``time.monotonic()`` when the request was read), else from now.
        """
        arg = _typed_input(reg, input_data)
        timeout_s = effective_timeout(reg.timeout_s)
        now = time.monotonic()
        left = timeout_s - (now - arrived if arrived is not None else 0.0)
        deadline = now + left
        scope = scope if scope is not None else trio.CancelScope()
        scope.deadline = trio.current_time() + left
        with scope:
            try:
                result = await self._attempts(reg, arg, tool_use_id, ctx, deadline)
            except BaseException as exc:
                if _is_cancellation(exc):
                    ctx.cancel()
                    raise
                return _failed(reg, ctx, exc, timeout_s)
        if scope.cancelled_caught:
            ctx.cancel()
            if trio.current_time() < scope.deadline:
                return Outcome("cancelled", message="withdrawn")
            return self.timed_out(reg, ctx)
        return self.check(reg.event, result)

    def start_inline(
        self,
        reg: Registration,
        input_data: dict[str, Any],
        tool_use_id: str | None,
        ctx: HookContext,
        *,
        arrived: float | None = None,
    ) -> Outcome | Paused:
        """Run a trio hook in the caller's own task, up to its first yield to trio.

        Most hooks never yield: their outcome is returned at once. A hook that
        yields comes back :class:`Paused`; the caller puts it under a deadline of
        :func:`effective_timeout` (from ``arrived``) and awaits :meth:`finish_inline`.
        """
        try:
            arg = _typed_input(reg, input_data)
            awaitable = reg.callback(arg, tool_use_id, ctx)
            if type(awaitable) is not types.CoroutineType and not inspect.iscoroutine(awaitable):
                return Paused(awaitable, None, 0.0, None)
            start = arrived if arrived is not None else time.monotonic()
            deadline = start + effective_timeout(reg.timeout_s)
            context = contextvars.copy_context()
            done, value = step(awaitable, deadline, context.run)
        except BaseException as exc:
            return _caught(reg, ctx, exc)
        if done:
            return self.check(reg.event, value)
        return Paused(awaitable, value, deadline, context)

    @types.coroutine
    def finish_inline(
        self, reg: Registration, ctx: HookContext, paused: Paused
    ) -> Generator[Any, Any, Outcome]:
        """Drive a :class:`Paused` hook to its end; its outcome. Raises only trio's cancellation."""
        try:
            if paused.context is None:  # an awaitable that is not a coroutine: not watched
                result = yield from paused.awaitable.__await__()
            else:
                result = yield from resume(
                    paused.awaitable, paused.yielded, paused.deadline, paused.context
                )
        except BaseException as exc:
            return _caught(reg, ctx, exc)
        return self.check(reg.event, result)

    @staticmethod
    def timed_out(reg: Registration, ctx: HookContext) -> Outcome:
        """The outcome of a hook cancelled at its deadline."""
        ctx.cancel()
        timeout_s = effective_timeout(reg.timeout_s)
        log.warning("hook.timed_out", callback_id=reg.callback_id, timeout_s=timeout_s)
        return Outcome("timeout", message=f"no answer within {timeout_s:g}s")

    def check(self, event: str, result: Any) -> Outcome:
        """Normalise a callback's return value and validate it for ``event``."""
        if result is None:
            return Outcome("ok", {})
        if type(result) is not dict:
            if not isinstance(result, Mapping):
                kind = type(result).__name__
                return Outcome("invalid_output", message=f"expected a dict or None, got {kind}")
            result = dict(result)
        if "continue_" in result or "async_" in result:
            result = sdk_renamed(result)
        if not self.validate:
            return Outcome("ok", result)
        try:
            return Outcome("ok", prepare_output(event, result))
        except InvalidOutputError as exc:
            return Outcome("invalid_output", message=str(exc))
        except Exception as exc:  # e.g. a dict that contains itself
            text = f"{type(exc).__name__}: {_safe_str(exc) or 'no details'}"
            return Outcome("invalid_output", message=f"output cannot be checked ({text})")

    async def _attempts(
        self,
        reg: Registration,
        arg: Any,
        tool_use_id: str | None,
        ctx: HookContext,
        deadline: float,
    ) -> Any:
        if reg.retry is None:
            return await self._call(reg, arg, tool_use_id, ctx, deadline)
        from hookd.engine.retry import retrying

        async for attempt in retrying(reg, ctx):
            with attempt:
                return await self._call(reg, arg, tool_use_id, ctx, deadline)
        raise RetryableHookError("retries exhausted")  # pragma: no cover - reraise=True

    async def _call(
        self,
        reg: Registration,
        arg: Any,
        tool_use_id: str | None,
        ctx: HookContext,
        deadline: float,
    ) -> Any:
        match reg.runner:
            case "trio":
                awaitable = reg.callback(arg, tool_use_id, ctx)
                if inspect.iscoroutine(awaitable):
                    return await watched(awaitable, deadline)
                return await awaitable
            case "asyncio":
                return await run_on_asyncio(reg.callback, arg, tool_use_id, ctx)
            case _:
                return await trio.to_thread.run_sync(
                    _call_sync,
                    reg.callback,
                    arg,
                    tool_use_id,
                    ctx,
                    abandon_on_cancel=True,
                    limiter=self._threads,
                )


def _call_sync(fn: Any, arg: Any, tool_use_id: str | None, ctx: HookContext) -> Any:
    result = fn(arg, tool_use_id, ctx)
    if hasattr(result, "__await__"):
        close = getattr(result, "close", None)
        if close is not None:
            close()
        raise TypeError("callback returned an awaitable from a plain function; make it async def")
    return result


def _typed_input(reg: Registration, input_data: dict[str, Any]) -> Any:
    if reg.input_type is None:
        return input_data
    return msgspec.convert(input_data, reg.input_type)


def _caught(reg: Registration, ctx: HookContext, exc: BaseException) -> Outcome:
    """The outcome of a hook that raised ``exc``; trio's cancellation is raised again."""
    if _is_cancellation(exc):
        ctx.cancel()
        raise exc
    return _failed(reg, ctx, exc, effective_timeout(reg.timeout_s))


def _is_cancellation(exc: BaseException) -> bool:
    if isinstance(exc, trio.Cancelled):
        return True
    if isinstance(exc, BaseExceptionGroup):
        rest = exc.split(trio.Cancelled)[1]
        return rest is None
    return False


def _failed(reg: Registration, ctx: HookContext, exc: BaseException, timeout_s: float) -> Outcome:
    """Classify a hook's exception; log the traceback of real failures.

    The wire gets ``str(exc)`` (the type name if it is empty), as the SDK sends it.
    """
    match exc:
        case HookAbortError():
            return Outcome("abort", message=exc.reason or "aborted by hook")
        case InvalidOutputError():  # raised by a hook that parses output itself
            return Outcome("invalid_output", message=str(exc))
        case HookStuckError():
            ctx.cancel()
            log.error("hook.stuck", callback_id=reg.callback_id, timeout_s=timeout_s)
            return Outcome(
                "timeout",
                message=f"held the event loop past {timeout_s:g}s without awaiting (interrupted)",
            )
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


def _safe_str(exc: BaseException) -> str:
    """``str(exc)``, or a stand-in when the exception's own ``__str__`` fails."""
    try:
        return str(exc)
    except Exception:
        return ""  # the caller falls back to the type name
