"""hookd's log lines during a test: kept off the test's output, tracebacks kept for the result.

structlog's configuration is global, so the capture is shared by every fire
running at once (reference-counted) and each fire takes the lines of its own
request id.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, MutableMapping
from contextlib import contextmanager
from typing import Any

import structlog

__all__ = ["captured_logs"]

_lock = threading.Lock()
_depth = 0
_saved: dict[str, Any] = {}
_listeners: dict[str, MutableMapping[str, str]] = {}


def _collect(_logger: Any, _method: str, event_dict: MutableMapping[str, Any]) -> Any:
    """A structlog processor: hand tracebacks to their fire, drop every line."""
    listener = _listeners.get(str(event_dict.get("request_id")))
    callback_id = event_dict.get("callback_id")
    if listener is not None and isinstance(callback_id, str):
        text = event_dict.get("traceback") or event_dict.get("event")
        if isinstance(text, str):
            listener.setdefault(callback_id, text)
    raise structlog.DropEvent


@contextmanager
def captured_logs(request_id: str) -> Iterator[MutableMapping[str, str]]:
    """While inside, hookd logs nothing; yields ``{callback_id: traceback or log event}``."""
    global _depth, _saved
    found: dict[str, str] = {}
    with _lock:
        if _depth == 0:
            _saved = structlog.get_config()
            structlog.configure(processors=[_collect], cache_logger_on_first_use=False)
        _depth += 1
        _listeners[request_id] = found
    try:
        yield found
    finally:
        with _lock:
            _listeners.pop(request_id, None)
            _depth -= 1
            if _depth == 0:
                structlog.configure(**_saved)
