"""Sync hooks' worker threads: one limiter for all, a share per hook and session, stuck calls.

A sync hook runs in a worker thread (:meth:`Threads.run`), watched until its deadline
(:func:`hookd.engine.watchdog.thread_watch`). A call still running past it is
abandoned, not killed: it is counted as stuck until its thread ends, and a hook with
:data:`STUCK_LIMIT` stuck calls in one session has that session's next calls refused.
"""

from __future__ import annotations

import threading
from typing import Any, Final

import structlog
import trio

from hookd.core.context import HookContext
from hookd.core.health import Key
from hookd.core.registry import Registration
from hookd.engine.watchdog import CLEANUP_GRACE_S, thread_watch

__all__ = ["HOOK_THREAD_LIMIT", "STUCK_LIMIT", "THREAD_LIMIT", "Threads", "thread_key"]

log = structlog.get_logger("hookd.executor")

THREAD_LIMIT: Final = 64
#: Threads one sync hook may hold at once (the rest of its calls wait their turn).
HOOK_THREAD_LIMIT: Final = 16
#: Calls of one sync hook still running past their deadline before its next calls are refused.
STUCK_LIMIT: Final = 4


class Threads:
    """Sync hooks' worker threads: one limiter, and the calls still running past their deadline.

    A hook's own limiter and its count of stuck calls are kept per session
    (:func:`thread_key`): calls one session sent that block for good can hold only that
    session's share of the hook, never another session's."""

    def __init__(self) -> None:
        self.limiter = trio.CapacityLimiter(THREAD_LIMIT)
        self.per_hook: dict[Key, trio.CapacityLimiter] = {}
        self.stuck: dict[Key, int] = {}
        self.stuck_by_hook: dict[str, int] = {}  # the sum over sessions, for the status
        self._lock = threading.Lock()

    def refusal(self, key: Key) -> str | None:
        stuck = self.stuck.get(key, 0)
        if stuck < STUCK_LIMIT:
            return None
        return (
            f"refused: {stuck} earlier calls are still running past their timeout "
            "(stuck in a blocking call); its calls are refused until one of them ends"
        )

    async def run(
        self, reg: Registration, arg: Any, tool_use_id: str | None, ctx: HookContext
    ) -> Any:
        key = thread_key(reg, ctx)
        job = _Job(self, key)
        own = self.per_hook.get(key)
        if own is None:
            own = self.per_hook[key] = trio.CapacityLimiter(HOOK_THREAD_LIMIT)
        try:
            async with own:  # one hook's burst of calls cannot take every thread
                return await trio.to_thread.run_sync(
                    job.call,
                    reg.callback,
                    arg,
                    tool_use_id,
                    ctx,
                    abandon_on_cancel=True,
                    limiter=self.limiter,
                )
        except trio.Cancelled:
            self._abandon(job)
            raise
        finally:
            if not own.borrowed_tokens and not own.statistics().tasks_waiting:
                self.per_hook.pop(key, None)  # made again on the next call: none piles up

    def _abandon(self, job: _Job) -> None:
        with self._lock:
            if job.started and not job.finished:  # a job still waiting for a thread never runs
                job.abandoned = True
                _count(self.stuck, job.key, 1)
                _count(self.stuck_by_hook, job.key[2], 1)

    def started(self, job: _Job) -> None:
        with self._lock:
            job.started = True

    def finished(self, job: _Job) -> None:
        with self._lock:
            job.finished = True
            if job.abandoned:
                _count(self.stuck, job.key, -1)
                _count(self.stuck_by_hook, job.key[2], -1)
                log.info("hook.thread_ended", callback_id=job.key[2], late=True)


def thread_key(reg: Registration, ctx: HookContext) -> Key:
    """Whose share of a sync hook's threads a call takes: its agent's session's."""
    return (ctx.agent, ctx.session_id or "", reg.callback_id)


def _count(counts: dict[Any, int], key: Any, step: int) -> None:
    left = counts.get(key, 0) + step
    if left > 0:
        counts[key] = left
    else:
        counts.pop(key, None)


class _Job:
    __slots__ = ("abandoned", "finished", "key", "started", "threads")

    def __init__(self, threads: Threads, key: Key) -> None:
        self.threads = threads
        self.key = key
        self.abandoned = False
        self.started = False
        self.finished = False

    def call(self, fn: Any, arg: Any, tool_use_id: str | None, ctx: HookContext) -> Any:
        """Run in the worker thread, watched until the hook's deadline."""
        self.threads.started(self)
        try:
            with thread_watch(ctx.deadline + CLEANUP_GRACE_S):  # time to notice ``cancelled``
                result = fn(arg, tool_use_id, ctx)
        finally:
            self.threads.finished(self)
        if hasattr(result, "__await__"):
            close = getattr(result, "close", None)
            if close is not None:
                close()
            raise TypeError(
                "callback returned an awaitable from a plain function; make it async def"
            )
        return result
