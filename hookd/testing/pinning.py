"""Pin a recorded session in a test: replay it against a hooks module, fail with the diff.

The replay is ``hookd replay``'s own: a real ``hookd serve`` process is started
for the hooks module (``hookd serve --http`` for an ``http`` transcript), the
CLI's side of the transcript is played into it, and every answer is compared
with the recorded one. A mismatch fails the test with the same field-level
report ``hookd replay`` prints.
"""

from __future__ import annotations

import concurrent.futures
import functools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import sniffio
import trio

from hookd.transcript.format import load
from hookd.transcript.replay import ReplayConfig, ReplayResult, format_report, replay

__all__ = ["ReplayMismatch", "assert_replays", "replay_transcript", "report"]

T = TypeVar("T")


class ReplayMismatch(AssertionError):
    """A replayed session whose answers differ from the recorded ones."""


def report(result: ReplayResult) -> str:
    """``hookd replay``'s report of ``result``."""
    return format_report(result)


def replay_transcript(
    transcript: str | Path,
    hooks: str | Path | None = None,
    *,
    timeout: float = 10.0,
    speed: float | None = None,
    serve_args: Sequence[str] = (),
) -> ReplayResult:
    """Replay ``transcript`` against ``hooks`` (default: the module its header names).

    Blocks until done; inside a running event loop it runs in a thread of its own.
    """
    config = ReplayConfig(
        hooks=None if hooks is None else str(hooks),
        speed=speed,
        timeout_s=timeout,
        serve_args=tuple(serve_args),
    )
    return _blocking(functools.partial(trio.run, replay, load(transcript), config))


def assert_replays(
    transcript: str | Path,
    hooks: str | Path | None = None,
    *,
    timeout: float = 10.0,
    speed: float | None = None,
    serve_args: Sequence[str] = (),
) -> ReplayResult:
    """Replay ``transcript`` against ``hooks``; raise :class:`ReplayMismatch` with
    ``hookd replay``'s report unless every answer matches."""
    __tracebackhide__ = True
    result = replay_transcript(
        transcript, hooks, timeout=timeout, speed=speed, serve_args=serve_args
    )
    if not result.ok:
        raise ReplayMismatch(report(result))
    return result


def _blocking(run: Callable[[], T]) -> T:
    try:
        sniffio.current_async_library()
    except sniffio.AsyncLibraryNotFoundError:
        return run()
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="hookd-replay") as pool:
        return pool.submit(run).result()
