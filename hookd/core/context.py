"""What a running callback is told about its call: ids, deadline, cancellation, state."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Mapping
from typing import Any, Final

import msgspec

__all__ = ["MAX_MARGIN_S", "HookContext", "effective_timeout"]

_lock = threading.Lock()

#: hookd answers this much before the CLI's own deadline for the same hook.
MAX_MARGIN_S: Final = 0.5


def effective_timeout(timeout_s: float) -> float:
    """hookd's deadline for a hook whose CLI-side timeout is ``timeout_s``.

    The answer must reach the CLI before the CLI gives up, so hookd stops
    waiting 10 % earlier (at most half a second earlier). This is the deadline
    the hook is shown (:attr:`HookContext.deadline`) and the one enforced.
    """
    return timeout_s - min(MAX_MARGIN_S, 0.1 * timeout_s)


#: The keys of the Claude Agent SDK's ``HookContext`` (a TypedDict there).
SDK_KEYS: Final = ("signal",)


class HookContext(msgspec.Struct):
    """The third argument of every callback.

    ``state`` is a dict shared by all hooks of the same ``session_id``.
    ``agent`` names the CLI the call came from (``"claude"`` for Claude Code);
    ``agent_event`` and ``agent_tool`` are that CLI's own names for the event
    and the tool (``"BeforeTool"``, ``"run_shell_command"`` from Gemini CLI),
    while ``event`` and the input speak Claude Code's (``None`` when unknown).
    ``cancelled`` turns true when hookd stops waiting for the callback (its
    timeout passed or the CLI withdrew the request): sync callbacks running in
    a worker thread should poll it.

    It also reads as the SDK's ``HookContext`` mapping: ``context["signal"]``
    and ``context.get("signal")`` are ``None``, as in the Claude Agent SDK.

    A msgspec Struct: one is made for every hook call, and its constructor runs in C
    (about 0.1 us against 0.6 us for a class with an ``__init__``; the stdio bench's answer
    costs about 20 us of CPU). hookd makes it with positional arguments (0.1 us less than
    by keyword); the fields' order is part of the type.
    """

    request_id: str | int | None
    callback_id: str
    event: str
    tool_use_id: str | None
    timeout_s: float
    state: dict[str, Any]
    #: ``time.monotonic()`` when the request was read (None: the call starts when made).
    arrived: float | None = None
    agent: str = "claude"
    agent_event: str | None = None
    agent_tool: str | None = None
    #: The call's ``session_id`` (None when it has none): whose share of the hook's health
    #: records and threads the call takes.
    session_id: str | None = None
    attempt: int = 1
    _wall_deadline: float = 0.0  # worked out on first use (no __post_init__: one less call)
    _made: float = msgspec.field(default_factory=time.monotonic)
    _cancelled: threading.Event | None = None  # made on demand: most calls never wait
    _is_cancelled: bool = False

    @property
    def deadline(self) -> float:
        """When hookd gives up on the callback, on the ``time.monotonic()`` clock.

        It is the deadline hookd enforces: ``timeout_s`` from when the request
        was read, less the margin hookd keeps before the CLI's own deadline.
        """
        deadline = self._wall_deadline
        if not deadline:
            # from when the request arrived (else when this context was made), less hookd's
            # margin before the CLI's own deadline (:func:`effective_timeout`)
            start = self._made if self.arrived is None else self.arrived
            timeout_s = self.timeout_s  # effective_timeout, written out: once per hook call
            deadline = start + timeout_s - min(MAX_MARGIN_S, 0.1 * timeout_s)
            self._wall_deadline = deadline
        return deadline

    def time_left(self) -> float:
        """Seconds until the deadline (never negative)."""
        return max(0.0, self.deadline - time.monotonic())

    @property
    def cancelled(self) -> bool:
        """True once hookd no longer waits for this callback."""
        return self._is_cancelled

    def wait_cancelled(self, timeout: float | None = None) -> bool:
        """Block (in a sync callback) until cancelled or ``timeout``; True if cancelled."""
        with _lock:
            if self._cancelled is None:
                self._cancelled = threading.Event()
                if self._is_cancelled:
                    self._cancelled.set()
            event = self._cancelled
        return event.wait(timeout)

    def cancel(self) -> None:
        """Mark the call as abandoned (hookd does this; callbacks read ``cancelled``)."""
        with _lock:
            self._is_cancelled = True
            if self._cancelled is not None:
                self._cancelled.set()

    @property
    def signal(self) -> None:
        """The SDK's abort signal slot: always None in Python."""
        return None

    # -- the SDK's mapping view: {"signal": None} -----------------------------

    def __getitem__(self, key: str) -> Any:
        if key == "signal":
            return None
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:
        """``context.get("signal")``, as SDK code reads its context."""
        return None if key == "signal" else default

    def __contains__(self, key: object) -> bool:
        return key in SDK_KEYS

    def __iter__(self) -> Iterator[str]:
        return iter(SDK_KEYS)

    def __len__(self) -> int:
        return len(SDK_KEYS)

    def keys(self) -> tuple[str, ...]:
        return SDK_KEYS

    def values(self) -> tuple[Any, ...]:
        return (None,)

    def items(self) -> tuple[tuple[str, Any], ...]:
        return (("signal", None),)

    def __repr__(self) -> str:
        return (
            f"HookContext(request_id={self.request_id!r}, callback_id={self.callback_id!r}, "
            f"event={self.event!r}, time_left={self.time_left():.3f})"
        )


Mapping.register(HookContext)
