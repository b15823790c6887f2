"""A watchdog for async hooks that hold the event loop without ever awaiting.

trio cannot interrupt a coroutine that busy-loops: while it runs, nothing else
does, timeouts included. Each step of an async hook's coroutine is therefore
run under :func:`watched`, which records when the step started and its
deadline. A daemon thread checks that record; when a single step has outlived
its deadline, the thread raises :class:`HookStuckError` inside the main thread
(``PyThreadState_SetAsyncExc``), at the hook's next bytecode. The exception
never escapes :func:`watched`: a pending one is withdrawn before the step
returns control to trio.

What this cannot do: interrupt code that never returns to the interpreter
(a long C call such as ``time.sleep`` or a regex on a huge input in the event
loop thread). Such a hook is noticed when the call returns.
"""

from __future__ import annotations

import contextvars
import ctypes
import threading
import time
import types
from collections.abc import Callable, Coroutine, Generator
from typing import Any, Final

__all__ = ["HookStuckError", "resume", "step", "watched"]

POLL_S: Final = 0.02
GRACE_S: Final = 0.0

_set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
_set_async_exc.argtypes = (ctypes.c_ulong, ctypes.py_object)


class HookStuckError(Exception):
    """A hook held the event loop past its deadline without awaiting."""


class _Watchdog:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._deadline: float | None = None
        self._fired = False
        self._thread_id = 0
        self._started = False

    def enter(self, deadline: float) -> None:
        if not self._started:
            self._start()
        self._deadline = deadline  # a plain store: the hot path takes no lock

    def leave(self) -> None:
        self._deadline = None
        if self._fired:
            with self._lock:
                if self._fired:
                    self._fired = False
                    _set_async_exc(self._thread_id, ctypes.py_object())  # withdraw if pending

    def _start(self) -> None:
        with self._lock:
            if self._started:
                return
            self._thread_id = threading.get_ident()
            self._started = True
        threading.Thread(target=self._watch, name="hookd-watchdog", daemon=True).start()

    def _watch(self) -> None:
        while True:
            time.sleep(POLL_S)
            deadline = self._deadline
            if deadline is None or time.monotonic() < deadline + GRACE_S:
                continue
            with self._lock:
                if self._deadline is deadline and not self._fired:
                    self._fired = True
                    _set_async_exc(self._thread_id, ctypes.py_object(HookStuckError))


_watchdog = _Watchdog()


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
    a context of its own).
    """
    _watchdog.enter(deadline)
    try:
        yielded = run(coro.send, value) if error is None else run(coro.throw, error)
    except StopIteration as done:
        return True, done.value
    finally:
        _watchdog.leave()
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


@types.coroutine
def watched(coro: Coroutine[Any, Any, Any], deadline: float) -> Generator[Any, Any, Any]:
    """Run ``coro`` step by step, each step under the watchdog's eye."""
    done, out = step(coro, deadline, _call)
    if done:
        return out
    return (yield from resume(coro, out, deadline))


def _call(fn: Callable[[Any], Any], arg: Any) -> Any:
    return fn(arg)
