"""Answer ``initialize`` while the rest of hookd is still being imported.

A CLI sends ``initialize`` first and waits for it. trio and structlog take most
of hookd's start-up time, and the answer needs neither: the registry and the
codec are enough. So ``hookd serve`` imports the heavy modules in a thread and
meanwhile reads its first input itself, answers the ``initialize`` requests at
its head, and hands everything after them to the server.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from hookd import wire
from hookd._version import __version__
from hookd.core.registry import Registry
from hookd.serve.stdio import write_all

__all__ = ["Interrupted", "answer_early", "import_in_background", "initialize_payload"]


class Interrupted(Exception):
    """SIGTERM or SIGINT arrived before the server was running."""


def initialize_payload(registry: Registry) -> dict[str, Any]:
    """The ``initialize`` answer: the hooks map plus hookd's name and version."""
    return {"hooks": registry.hooks_map(), "serverInfo": {"name": "hookd", "version": __version__}}


def import_in_background(*modules: str) -> threading.Thread:
    """Start importing ``modules`` in a daemon thread; join it before using them."""

    def work() -> None:
        import importlib

        for name in modules:
            importlib.import_module(name)

    thread = threading.Thread(target=work, name="hookd-import", daemon=True)
    thread.start()
    return thread


def answer_early(registry: Registry, fd_in: int, fd_out: int) -> bytes:
    """Read the first input; answer the ``initialize`` requests at its head.

    Returns the bytes that follow them, for the server. Blocks until the
    CLI writes something (nothing needs serving before that). Raises
    :class:`Interrupted` on SIGTERM or SIGINT.
    """
    with _signals_interrupt():
        data = os.read(fd_in, wire.READ_SIZE)
    rest = data
    while b"\n" in rest:
        line, after = rest.split(b"\n", 1)
        answer = _initialize_answer(registry, line)
        if answer is None:
            break
        write_all(fd_out, answer)
        rest = after
    return rest


def _initialize_answer(registry: Registry, line: bytes) -> bytes | None:
    if not line.strip():
        return b""
    msg = wire.decode_line(line.strip())
    if not (isinstance(msg, wire.Call) and isinstance(msg.body, wire.Initialize)):
        return None
    if msg.request_id is None:
        return b""  # a JSON-RPC notification: nothing to answer
    return wire.encode_success(msg.framing, msg.request_id, initialize_payload(registry))


@contextmanager
def _signals_interrupt() -> Iterator[None]:
    """Turn SIGTERM / SIGINT into :class:`Interrupted` while reading."""
    old = {s: signal.signal(s, _raise) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for signum, handler in old.items():
            signal.signal(signum, handler)


def _raise(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(signal.Signals(signum).name)
