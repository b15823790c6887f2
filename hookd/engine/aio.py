"""A dedicated asyncio event loop thread for callbacks written for asyncio.

Hook code written for the Claude Agent SDK awaits asyncio primitives; trio
cannot run those. Such callbacks run on one long-lived asyncio loop in a daemon
thread, and trio awaits their result without blocking its own loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from typing import Any

import trio

__all__ = ["run_on_asyncio"]

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_thread: threading.Thread | None = None


def _get_loop() -> asyncio.AbstractEventLoop:
    global _loop, _thread
    with _lock:
        if _loop is None or _loop.is_closed() or _thread is None or not _thread.is_alive():
            loop = asyncio.new_event_loop()
            ready = threading.Event()

            def main() -> None:
                asyncio.set_event_loop(loop)
                loop.call_soon(ready.set)
                loop.run_forever()

            _thread = threading.Thread(target=main, name="hookd-asyncio", daemon=True)
            _thread.start()
            ready.wait()
            _loop = loop
        return _loop


async def run_on_asyncio(fn: Callable[..., Coroutine[Any, Any, Any]], *args: Any) -> Any:
    """Run ``fn(*args)`` on the asyncio thread; cancelling the caller cancels it."""
    loop = _get_loop()
    token = trio.lowlevel.current_trio_token()
    done = trio.Event()

    def wake(_: Future[Any]) -> None:
        with contextlib.suppress(trio.RunFinishedError):
            token.run_sync_soon(done.set)

    future = asyncio.run_coroutine_threadsafe(_call(fn, args), loop)
    future.add_done_callback(wake)
    try:
        await done.wait()
    except BaseException:
        future.cancel()
        raise
    try:
        return future.result()
    except _Escaped as escaped:
        raise escaped.exc from None


class _Escaped(Exception):
    """Carries KeyboardInterrupt / SystemExit out of asyncio, which would die of them."""

    def __init__(self, exc: BaseException) -> None:
        super().__init__(repr(exc))
        self.exc = exc


async def _call(fn: Callable[..., Coroutine[Any, Any, Any]], args: tuple[Any, ...]) -> Any:
    try:
        return await fn(*args)
    except (KeyboardInterrupt, SystemExit) as exc:
        raise _Escaped(exc) from None
