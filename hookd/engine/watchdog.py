"""A watchdog for hooks that run past their deadline without giving control back.

trio cannot interrupt a coroutine that busy-loops: while it runs, nothing else
does, timeouts included. Nor can it stop a sync hook's worker thread. So each
step of an async hook's coroutine runs under :func:`watched` (or :func:`step`),
and each sync hook's call under :func:`thread_watch`. A daemon thread raises
:class:`HookStuckError` inside the offending thread
(``PyThreadState_SetAsyncExc``) once a step or a call has outlived its
deadline; the exception lands at the hook's next bytecode. A pending exception
is withdrawn before control goes back to trio or to the thread pool.

The watching thread sleeps on a condition while no hook runs: an idle daemon
never wakes it. While a step or a thread is watched it checks every
:data:`POLL_S`, so a deadline is enforced within that.

A step that delivers trio's cancellation to a coroutine (its ``finally``
blocks and ``except`` clauses) is watched from its own start for
:data:`CLEANUP_GRACE_S`, so the hook's clean-up runs undisturbed.

What this cannot do: interrupt code that never returns to the interpreter (a
long C call such as ``time.sleep``). Such a call is noticed when it returns.
"""

from __future__ import annotations

import contextvars
import ctypes
import itertools
import threading
import time
import types
from collections.abc import Callable, Coroutine, Generator, Iterator
from contextlib import contextmanager
from typing import Any, Final

__all__ = ["CLEANUP_GRACE_S", "POLL_S", "HookStuckError", "resume", "step", "thread_watch"]

POLL_S: Final = 0.02
CLEANUP_GRACE_S: Final = 1.0

_set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
_set_async_exc.argtypes = (ctypes.c_ulong, ctypes.py_object)


class HookStuckError(Exception):
    """A hook ran past its deadline without giving control back."""


class _Watchdog:
    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._step_deadline: float | None = None  # the loop thread's current step
        self._step_fired = False
        self._loop_thread = 0
        self._threads: dict[int, tuple[int, float]] = {}  # token -> (thread id, deadline)
        self._fired: set[int] = set()  # tokens whose thread was interrupted
        self._tokens = itertools.count(1)
        self._awake = False
        self._started = False

    # -- steps of async hooks, in the event loop's thread (the hot path, in step(): no lock)

    def withdraw(self) -> None:
        """Withdraw the exception raised in a step that has now ended, if still pending."""
        with self._cond:
            if self._step_fired:
                self._step_fired = False
                _set_async_exc(self._loop_thread, ctypes.py_object())

    # -- sync hooks, in their worker threads ---------------------------------------------

    def enter_thread(self, deadline: float) -> int:
        token = next(self._tokens)
        with self._cond:
            self._threads[token] = (threading.get_ident(), deadline)
            self._start_locked()
            self._awake = True
            self._cond.notify()
        return token

    def leave_thread(self, token: int) -> None:
        with self._cond:
            self._threads.pop(token, None)
            if token in self._fired:
                self._fired.discard(token)
                _set_async_exc(threading.get_ident(), ctypes.py_object())  # withdraw

    # -- the watching thread -------------------------------------------------------------

    def _wake(self) -> None:
        with self._cond:
            self._start_locked()
            self._awake = True
            self._cond.notify()

    def _start_locked(self) -> None:
        if not self._started:
            self._started = True
            threading.Thread(target=self._watch, name="hookd-watchdog", daemon=True).start()

    def _watch(self) -> None:
        while True:
            with self._cond:
                self._sleep_locked()
            time.sleep(POLL_S)
            self._check()

    def _sleep_locked(self) -> None:
        """Wait while nothing is watched, or until the soonest thread deadline draws near.

        Once woken it stays awake for one poll: a busy stream of short steps
        wakes it at most once per :data:`POLL_S`.
        """
        self._awake = False  # written before the step deadline is read: see step()
        if self._step_deadline is not None:
            self._awake = True
            return
        if self._threads:
            soonest = min(deadline for _, deadline in self._threads.values())
            wait_s = soonest - time.monotonic() - POLL_S
            if wait_s > 0:
                self._cond.wait(wait_s)  # or until a new step or thread is watched
        else:
            self._cond.wait()
        self._awake = True

    def _check(self) -> None:
        now = time.monotonic()
        with self._cond:
            deadline = self._step_deadline
            if deadline is not None and now >= deadline and not self._step_fired:
                self._step_fired = True
                _set_async_exc(self._loop_thread, ctypes.py_object(HookStuckError))
            for token, (ident, thread_deadline) in list(self._threads.items()):
                if now >= thread_deadline:
                    del self._threads[token]
                    self._fired.add(token)
                    _set_async_exc(ident, ctypes.py_object(HookStuckError))


_watchdog = _Watchdog()
_get_ident = threading.get_ident


@contextmanager
def thread_watch(deadline: float) -> Iterator[None]:
    """Watch the calling (worker) thread until ``deadline`` (``time.monotonic()``)."""
    token = _watchdog.enter_thread(deadline)
    try:
        yield
    finally:
        _watchdog.leave_thread(token)


def step(
    coro: Coroutine[Any, Any, Any],
    deadline: float,
    run: Callable[..., Any],
    value: Any = None,
    error: BaseException | None = None,
) -> tuple[bool, Any]:
    """One step of ``coro`` under the watchdog's eye.

    Returns ``(True, result)`` once the coroutine has finished, else ``(False,
    what it yielded)``. ``run`` makes the call (``Context.run`` runs the step in
    a context of its own). A step that throws ``error`` in is clean-up: it is
    given :data:`CLEANUP_GRACE_S` from now, whatever the deadline.
    """
    # _Watchdog.enter and .leave, written out: this runs for every step of every async hook
    watchdog = _watchdog
    if error is not None:
        deadline = max(deadline, time.monotonic() + CLEANUP_GRACE_S)
    watchdog._loop_thread = _get_ident()  # the loop this step runs on (the kit may run several)
    watchdog._step_deadline = deadline
    if not watchdog._awake:
        watchdog._wake()
    try:
        yielded = run(coro.send, value) if error is None else run(coro.throw, error)
    except StopIteration as done:
        return True, done.value
    finally:
        watchdog._step_deadline = None
        if watchdog._step_fired:
            watchdog.withdraw()
    return False, yielded


@types.coroutine
def resume(
    coro: Coroutine[Any, Any, Any],
    yielded: Any,
    deadline: float,
    context: contextvars.Context | None = None,
) -> Generator[Any, Any, Any]:
    """Drive ``coro`` on from a step that yielded ``yielded``, each step watched.

    ``deadline`` is on the ``time.monotonic()`` clock. Each step runs in
    ``context`` when one is given, so that a hook run in another task's context
    keeps its context variables to itself.
    """
    run = context.run if context is not None else _call
    while True:
        try:
            value, error = (yield yielded), None
        except BaseException as exc:  # trio's Cancelled and friends go to the coroutine
            value, error = None, exc
        done, yielded = step(coro, deadline, run, value, error)
        if done:
            return yielded


def _call(fn: Callable[[Any], Any], arg: Any) -> Any:
    return fn(arg)
