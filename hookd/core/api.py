"""The user-facing API: the ``@hook`` decorator and the result helpers.

Depends on the registry only, so ``import hookd`` stays light.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Final, TypeVar

from hookd.core.policy import PERMISSION_REQUEST, deny_output
from hookd.core.registration import CustomEvent
from hookd.core.registry import SHADOW_MARK, OnFailure, Registry, RetryPolicy, Runner

__all__ = [
    "add_context",
    "allow",
    "ask",
    "block",
    "current_registry",
    "custom_event",
    "deny",
    "hook",
    "runs_on",
    "shadow",
    "update_input",
]

F = TypeVar("F", bound=Callable[..., Any])

_DEFAULT = Registry()
_current: contextvars.ContextVar[Registry] = contextvars.ContextVar("hookd_registry")


def current_registry() -> Registry:
    """The registry ``@hook`` registers into: the one being loaded, else a default."""
    return _current.get(_DEFAULT)


@contextmanager
def collecting(registry: Registry) -> Iterator[Registry]:
    """Make ``@hook`` register into ``registry`` while a hooks module is imported."""
    token = _current.set(registry)
    try:
        yield registry
    finally:
        _current.reset(token)


def hook(
    event: str,
    matcher: str | None = None,
    *,
    timeout: float | None = None,
    on_failure: OnFailure | None = None,
    retry: RetryPolicy | None = None,
    runner: Runner | None = None,
) -> Callable[[F], F]:
    """Register the decorated callback for ``event`` (``timeout`` in seconds)."""

    def decorate(fn: F) -> F:
        current_registry().add(
            event,
            fn,
            matcher=matcher,
            timeout=timeout,
            on_failure=on_failure,
            retry=retry,
            runner=runner,
        )
        return fn

    return decorate


def custom_event(name: str) -> CustomEvent:
    """``name`` as an event hookd does not list, to register it on purpose.

    Unknown names are refused at load as likely typos (``PreToolUze``); wrap a
    name in ``custom_event`` when it is meant, e.g. an event newer than this
    hookd: ``hooks = {hookd.custom_event("NewEvent"): [...]}``.
    """
    if not isinstance(name, str) or not name:
        raise ValueError("custom_event needs a non-empty event name")
    return CustomEvent(name)


def runs_on(runner: Runner) -> Callable[[F], F]:
    """Choose where a callback runs (``trio``, ``asyncio`` or ``thread``)."""

    def mark(fn: F) -> F:
        fn.__hookd_runner__ = runner  # type: ignore[attr-defined]
        return fn

    return mark


def shadow(fn: F) -> F:
    """Run the decorated hook in shadow: on real calls, its would-be decision logged.

    A shadow hook's output is never part of the answer and its failures never
    block: ``hookd log --shadow`` shows what it would have decided. Above or
    below ``@hookd.hook``, or on a callback listed in the ``hooks`` dict.
    """
    setattr(fn, SHADOW_MARK, True)
    current_registry().mark_shadow(fn)
    return fn


# ------------------------------------------------------------------ result helpers
#
# Helpers that know their event take it as ``event=``; the event is filled in from
# the request when left out (hookd fills a missing ``hookEventName``).


def _specific(event: str | None, **fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {k: v for k, v in fields.items() if v is not None}
    if event is not None:
        out = {"hookEventName": event, **out}
    return {"hookSpecificOutput": out}


#: Events whose ``hookSpecificOutput`` takes ``permissionDecision``.
_DECIDED: Final = ("PreToolUse", "PreModelSwitch")


def _decision_event(helper: str, event: str) -> None:
    if event not in (*_DECIDED, PERMISSION_REQUEST):
        raise ValueError(
            f"{helper}() builds a permission decision, which {event} does not take "
            f"(PreToolUse, PreModelSwitch, PermissionRequest); use block(reason) "
            f"to block {event}"
        )


def allow(reason: str | None = None, *, event: str = "PreToolUse") -> dict[str, Any]:
    """Let the tool call run (PreToolUse ``permissionDecision: allow``).

    On PermissionRequest: ``decision: {"behavior": "allow"}``, the event's own
    shape; it carries no reason, so ``reason`` is not sent there.
    """
    _decision_event("allow", event)
    if event == PERMISSION_REQUEST:
        return _specific(event, decision={"behavior": "allow"})
    return _specific(event, permissionDecision="allow", permissionDecisionReason=reason)


def deny(reason: str, *, event: str = "PreToolUse") -> dict[str, Any]:
    """Refuse the tool call; ``reason`` is shown to the model."""
    _decision_event("deny", event)
    return deny_output(event, reason)


def ask(reason: str | None = None, *, event: str = "PreToolUse") -> dict[str, Any]:
    """Ask the user to confirm the tool call.

    On PermissionRequest the user is being asked already: ``ask`` there makes
    no decision, so the CLI shows its own permission prompt, and ``reason``
    (if any) is shown to the user as ``systemMessage``.
    """
    _decision_event("ask", event)
    if event == PERMISSION_REQUEST:
        return {"systemMessage": reason} if reason else {}
    return _specific(event, permissionDecision="ask", permissionDecisionReason=reason)


def block(reason: str) -> dict[str, Any]:
    """Block the guarded action (Stop, UserPromptSubmit, PostToolUse, ...)."""
    return {"decision": "block", "reason": reason}


def add_context(text: str, *, event: str | None = None) -> dict[str, Any]:
    """Add text to the model's context (``hookSpecificOutput.additionalContext``)."""
    return _specific(event, additionalContext=text)


def update_input(tool_input: dict[str, Any], *, reason: str | None = None) -> dict[str, Any]:
    """Rewrite the tool input (PreToolUse); the call is allowed with the new input."""
    return _specific(
        "PreToolUse",
        permissionDecision="allow",
        updatedInput=tool_input,
        permissionDecisionReason=reason,
    )
