"""Runner detection: where a callback runs (trio, the asyncio loop thread, a worker thread)."""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping
from typing import Any, get_type_hints

import msgspec

from hookd.core.registration import Runner

__all__ = ["RunnerChoice", "choose_runner", "detect_runner", "wanted_input_type"]


class RunnerChoice(msgspec.Struct, frozen=True):
    """Where a callback runs, why (for ``hookd check``), and a doubt worth a warning."""

    runner: Runner
    why: str
    doubt: str | None = None


def detect_runner(callback: Any) -> Runner:
    """Where a callback runs: trio, the asyncio loop thread, or a worker thread."""
    return choose_runner(callback).runner


def choose_runner(callback: Any) -> RunnerChoice:
    """Where a callback runs, and why.

    Coroutine functions run on trio unless marked (``runner="asyncio"``) or
    written for asyncio: their code uses asyncio (or the Claude Agent SDK),
    directly or through functions of other modules that they call, or uses
    neither library while their module imports asyncio and not trio.
    """
    marked = getattr(callback, "__hookd_runner__", None)
    if marked in ("trio", "asyncio", "thread"):
        return RunnerChoice(marked, "marked with runs_on")
    target = inspect.unwrap(callback)
    call = getattr(target, "__call__", None)  # noqa: B004 - callable objects
    if not (inspect.iscoroutinefunction(target) or inspect.iscoroutinefunction(call)):
        return RunnerChoice("thread", "plain def: a worker thread")
    fn = target if inspect.isfunction(target) else getattr(call, "__func__", call)
    globs: dict[str, Any] = getattr(fn, "__globals__", None) or {}
    code = getattr(fn, "__code__", None)
    used = _libraries(globs, _names(code)) if code is not None else set()
    if used:
        lib: Runner = "asyncio" if used == {"asyncio"} else "trio"
        return RunnerChoice(lib, f"its code uses {' and '.join(sorted(used))}")
    helper = _helper_library(globs, _names(code)) if code is not None else None
    if helper is not None and helper[0] == "asyncio":
        return RunnerChoice("asyncio", f"awaits {helper[1]}, which uses asyncio")
    module_libs = _libraries(globs, globs)
    if "trio" in module_libs:
        return RunnerChoice("trio", "its module imports trio")
    if "asyncio" in module_libs:
        return RunnerChoice("asyncio", "its module imports asyncio and not trio")
    doubt = None
    if helper is not None:
        doubt = (
            f"it calls {helper[1]}, whose module imports asyncio: if it awaits asyncio code, "
            'mark it @hookd.runs_on("asyncio") so that it does not fail on trio'
        )
    return RunnerChoice("trio", "async def using neither library: trio", doubt)


def _helper_library(
    globs: Mapping[str, Any], names: Iterable[str], depth: int = 3
) -> tuple[str, str] | None:
    """(``asyncio`` or ``maybe``, name) for a function of another module that the code calls.

    ``asyncio``: that function's own code (or code it calls) uses asyncio.
    ``maybe``: only its module imports asyncio.
    """
    maybe = None
    for fn in _functions(globs, names):
        inner_globs = fn.__globals__
        inner_names = _names(fn.__code__)
        label = f"{fn.__module__}.{fn.__qualname__}"
        if "asyncio" in _libraries(inner_globs, inner_names):
            return ("asyncio", label)
        if depth > 1:
            deeper = _helper_library(inner_globs, inner_names, depth - 1)
            if deeper is not None and deeper[0] == "asyncio":
                return ("asyncio", label)
        if maybe is None and "asyncio" in _libraries(inner_globs, inner_globs):
            maybe = ("maybe", label)
    return maybe


def _functions(globs: Mapping[str, Any], names: Iterable[str]) -> list[Any]:
    """The coroutine functions the names refer to (``f`` or ``module.f``), outside libraries."""
    wanted = set(names)
    found = []
    for name in wanted:
        value = globs.get(name)
        if inspect.ismodule(value):
            found += [getattr(value, n, None) for n in wanted]
        else:
            found.append(value)
    unwrapped = [inspect.unwrap(f) for f in found if callable(f)]
    return [
        f
        for f in unwrapped
        if inspect.iscoroutinefunction(f) and _is_user_module(getattr(f, "__module__", None))
    ]


def _is_user_module(name: str | None) -> bool:
    root = str(name or "").split(".")[0]
    return root not in ("asyncio", "trio", "hookd", "claude_agent_sdk", "anyio", "builtins")


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
    from hookd.events import catalogue  # only for a string annotation that did not resolve

    found = getattr(catalogue, annotation.rsplit(".", 1)[-1], None)
    return found if isinstance(found, type) else None
