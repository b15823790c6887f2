"""Hook tracebacks as a user reads them: their own frames, not hookd's, trio's or asyncio's."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import traceback
from pathlib import Path
from typing import Final

import outcome
import trio

__all__ = ["user_traceback"]

#: Frames from these folders are machinery between hookd and the hook.
_PACKAGES: Final = (trio, outcome, asyncio, concurrent.futures)
_MACHINERY: Final = (
    str(Path(__file__).resolve().parents[1]),  # hookd itself
    *(str(Path(module.__file__ or "").resolve().parent) for module in _PACKAGES),
    str(Path(threading.__file__).resolve()),
)

#: Frames kept at most (a RecursionError stays cheap).
LIMIT: Final = 64


def _is_machinery(filename: str) -> bool:
    try:
        path = str(Path(filename).resolve())
    except (OSError, ValueError):
        return False
    return path.startswith(_MACHINERY)


def _prune(tb: traceback.TracebackException) -> None:
    frames = [f for f in tb.stack if not _is_machinery(f.filename)]
    tb.stack = traceback.StackSummary.from_list(frames or list(tb.stack))
    for inner in (tb.__cause__, tb.__context__):
        if inner is not None:
            _prune(inner)


def user_traceback(exc: BaseException) -> str:
    """The traceback of ``exc`` without the frames of hookd and the event loops."""
    tb = traceback.TracebackException.from_exception(exc, limit=LIMIT)
    _prune(tb)
    return "".join(tb.format())
