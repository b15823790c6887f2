"""Fault: a hook returns something that is not a JSON object."""

from __future__ import annotations

from typing import Any

import hookd
from hookd import HookContext, HookMatcher
from tests.hooks.faults._healthy import healthy

Input = dict[str, Any]


def _allow_with(updated: Any) -> dict[str, Any]:
    out = hookd.allow("rewritten")
    out["hookSpecificOutput"]["updatedInput"] = updated
    return out


def _cycle() -> dict[str, Any]:
    loop: dict[str, Any] = {}
    loop["self"] = loop
    return loop


def _deep(depth: int) -> dict[str, Any]:
    top: dict[str, Any] = {}
    node = top
    for _ in range(depth):
        node["n"] = {}
        node = node["n"]
    return top


class Opaque:
    """Neither a mapping nor anything JSON knows."""


RESULTS: dict[str, Any] = {
    "Object": _allow_with({"x": object()}),
    "Cycle": _allow_with(_cycle()),
    "Deep": _allow_with(_deep(100_000)),
    "Surrogate": {"systemMessage": "half a pair: \ud800"},
    "TupleKey": _allow_with({(1, 2): "x"}),
    "List": ["not", "an", "object"],
    "Opaque": Opaque(),
}


def returning(name: str) -> Any:
    @hookd.runs_on("trio")
    async def returns(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
        return RESULTS[name]

    returns.__name__ = returns.__qualname__ = f"returns_{name.lower()}"
    return returns


hooks = {
    "PreToolUse": [
        *(HookMatcher(matcher=f"Fault{name}", hooks=[returning(name)]) for name in RESULTS),
        *healthy(),
    ]
}
