"""Runner detection: where a callback runs (trio, the asyncio loop thread, a worker thread)."""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping
from typing import Any, get_type_hints

import msgspec

from hookd.core.registration import Runner
from hookd.events import catalogue

__all__ = ["detect_runner", "wanted_input_type"]


def detect_runner(callback: Any) -> Runner:
    """Where a callback runs: trio, the asyncio loop thread, or a worker thread.

    Coroutine functions run on trio unless marked (``runner="asyncio"``) or
    written for asyncio: their code uses asyncio (or the Claude Agent SDK), or
    uses neither library while their module imports asyncio and not trio.
    """
    marked = getattr(callback, "__hookd_runner__", None)
    if marked in ("trio", "asyncio", "thread"):
        return marked  # type: ignore[no-any-return]
    target = inspect.unwrap(callback)
    call = getattr(target, "__call__", None)  # noqa: B004 - callable objects
    if not (inspect.iscoroutinefunction(target) or inspect.iscoroutinefunction(call)):
        return "thread"
    fn = target if inspect.isfunction(target) else getattr(call, "__func__", call)
    globs: dict[str, Any] = getattr(fn, "__globals__", None) or {}
    code = getattr(fn, "__code__", None)
    used = _libraries(globs, _names(code)) if code is not None else set()
    if not used:
        used = _libraries(globs, globs)
        if "trio" in used:
            return "trio"
    return "asyncio" if "asyncio" in used and "trio" not in used else "trio"


def _names(code: Any) -> set[str]:
    """Global names a code object (and the code nested in it) refers to."""
    names = set(code.co_names)
    for const in code.co_consts:
        if inspect.iscode(const):
            names |= _names(const)
    return names


def _libraries(globs: Mapping[str, Any], names: Iterable[str]) -> set[str]:
    """Which of trio / asyncio the given global names come from."""
    found: set[str] = set()
    for name in names:
        value = globs.get(name)
        if value is None:
            continue
        origin = value.__name__ if inspect.ismodule(value) else getattr(value, "__module__", "")
        root = str(origin or "").split(".")[0]
        if root in ("asyncio", "claude_agent_sdk"):
            found.add("asyncio")
        elif root in ("trio", "anyio"):  # anyio code runs on hookd's own trio loop
            found.add("trio")
    return found


def wanted_input_type(callback: Any) -> type[Any] | None:
    """The msgspec Struct a callback asks for as its first parameter, if any."""
    try:
        params = list(inspect.signature(callback).parameters.values())
    except (TypeError, ValueError):
        return None
    if not params:
        return None
    try:
        wanted = get_type_hints(callback).get(params[0].name)
    except Exception:  # an annotation that does not resolve: try hookd's own input types
        wanted = _event_type_named(params[0].annotation)
    if isinstance(wanted, type) and issubclass(wanted, msgspec.Struct):
        return wanted
    return None


def _event_type_named(annotation: object) -> type[Any] | None:
    if not isinstance(annotation, str):
        return None
    found = getattr(catalogue, annotation.rsplit(".", 1)[-1], None)
    return found if isinstance(found, type) else None
