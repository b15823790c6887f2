"""What a registration is: the SDK's matcher shape, retry policy, and one callback under its id."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import Any, Literal

import msgspec

from hookd.blocking import BLOCKING_EVENTS
from hookd.core.matcher import MatcherError, compile_matcher
from hookd.errors import HookdError
from hookd.events.names import unknown_event
from hookd.events.table import EVENT_NAMES

__all__ = [
    "BLOCKING_BY_DEFAULT",
    "DEFAULT_TIMEOUT_S",
    "CustomEvent",
    "HookCallable",
    "HookMatcher",
    "OnFailure",
    "Registration",
    "RegistrationError",
    "RetryPolicy",
    "Runner",
    "check_callable",
    "check_event",
    "check_timeout",
    "default_on_failure",
    "matcher_fields",
]

OnFailure = Literal["continue", "block"]
Runner = Literal["trio", "asyncio", "thread"]
HookCallable = Callable[..., Any]

DEFAULT_TIMEOUT_S = 30.0
#: Events that block on a hook failure unless the matcher says otherwise.
BLOCKING_BY_DEFAULT = BLOCKING_EVENTS


class RegistrationError(HookdError):
    """A hooks module or a registration call that cannot be accepted."""


class CustomEvent(str):
    """An event name outside hookd's catalogue, registered as written.

    ``hookd.custom_event("NewEvent")`` says the name is meant (an event newer
    than this hookd, or one a CLI of its own sends); any other unknown name is
    refused as a likely typo.
    """

    __slots__ = ()


def check_event(event: object, where: str) -> None:
    """Refuse an event name that is not in the catalogue unless it is a :class:`CustomEvent`."""
    if not isinstance(event, str) or not event:
        raise RegistrationError(f"{where}: event name must be a non-empty string")
    if event in EVENT_NAMES or isinstance(event, CustomEvent):
        return
    raise RegistrationError(
        f"{where}: {unknown_event(event)}; for an event hookd does not list, "
        f"write hookd.custom_event({event!r})"
    )


class RetryPolicy(msgspec.Struct, frozen=True):
    """Retries for an idempotent hook, always inside the hook's own deadline.

    A callback is retried only when it raises :class:`hookd.RetryableHookError`
    (a command hook: when it exits with one of ``exit_codes``).
    """

    attempts: int = 3
    backoff_s: float = 0.1
    multiplier: float = 2.0
    max_backoff_s: float = 2.0
    exit_codes: frozenset[int] = frozenset()

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise RegistrationError("retry attempts must be at least 1")
        if self.backoff_s < 0 or self.max_backoff_s < 0 or self.multiplier < 1:
            raise RegistrationError("retry backoff must be >= 0 and multiplier >= 1")


class HookMatcher(msgspec.Struct):
    """The Claude Agent SDK's matcher shape: which callbacks run for which tools.

    ``timeout`` is in seconds. ``on_failure`` picks the failure policy
    (``None``: the event's default). ``sequential`` and ``retry`` are hookd
    extensions.
    """

    matcher: str | None = None
    hooks: list[HookCallable] = msgspec.field(default_factory=list)
    timeout: float | None = None
    on_failure: OnFailure | None = None
    sequential: bool = False
    retry: RetryPolicy | None = None


class Registration(msgspec.Struct, frozen=True):
    """One callback under its id, with everything the executor needs."""

    callback_id: str
    event: str
    matcher: str | None
    callback: HookCallable
    timeout_s: float
    timeout_declared: bool
    on_failure: OnFailure
    runner: Runner
    group: int
    sequential: bool = False
    retry: RetryPolicy | None = None
    input_type: type[Any] | None = None
    runner_why: str = ""
    runner_doubt: str | None = None
    #: A shadow hook runs and is logged, but its output and failures never reach the agent.
    shadow: bool = False

    @property
    def name(self) -> str:
        """A readable name for logs: the callback's qualified name."""
        return getattr(self.callback, "__qualname__", None) or repr(self.callback)


def default_on_failure(event: str) -> OnFailure:
    """``block`` for events that guard an action, ``continue`` for the rest."""
    return "block" if event in BLOCKING_BY_DEFAULT else "continue"


def _kind(value: object) -> str:
    return type(value).__name__


def check_timeout(value: object, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise RegistrationError(f"{what} must be a number of seconds, not {_kind(value)}")
    if not math.isfinite(value) or value <= 0:
        raise RegistrationError(f"{what} must be a positive number of seconds, not {value!r}")


def matcher_fields(m: Any, where: str) -> dict[str, Any]:
    if not hasattr(m, "hooks"):
        raise RegistrationError(f"{where}: expected a HookMatcher, got {_kind(m)}")
    hooks = list(getattr(m, "hooks", None) or [])
    matcher = getattr(m, "matcher", None)
    if matcher is not None and not isinstance(matcher, str):
        raise RegistrationError(f"{where}: matcher must be a string or None")
    try:
        compile_matcher(matcher)
    except MatcherError as exc:
        raise RegistrationError(f"{where}: {exc}") from None
    timeout = getattr(m, "timeout", None)
    if timeout is not None:
        check_timeout(timeout, f"{where}: timeout")
    on_failure = getattr(m, "on_failure", None)
    if on_failure not in (None, "continue", "block"):
        raise RegistrationError(f"{where}: on_failure must be 'continue', 'block' or None")
    retry = getattr(m, "retry", None)
    if retry is not None and not isinstance(retry, RetryPolicy):
        raise RegistrationError(f"{where}: retry must be a hookd.RetryPolicy")
    sequential = bool(getattr(m, "sequential", False))
    return {
        "matcher": matcher,
        "hooks": hooks,
        "timeout": timeout,
        "on_failure": on_failure,
        "retry": retry,
        "sequential": sequential,
    }


def check_callable(callback: Any, where: str) -> None:
    if not callable(callback):
        raise RegistrationError(f"{where}: hook {callback!r} is not callable")
    try:
        inspect.signature(callback).bind(None, None, None)
    except TypeError:
        name = getattr(callback, "__qualname__", repr(callback))
        raise RegistrationError(
            f"{where}: hook {name} must accept (input_data, tool_use_id, context)"
        ) from None
    except ValueError:
        pass  # builtins without a signature: trust them
