"""One hook per failure case, for the same-meaning-on-every-entrance test.

The matcher names the case (the tool name); ``$ENTRANCE_POLICY`` sets every
hook's failure policy (``block``, the PreToolUse default, or ``continue``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import msgspec
import trio

from hookd import HookMatcher

POLICY: Any = os.environ.get("ENTRANCE_POLICY", "block")


class Shape(msgspec.Struct):
    path: int  # a Bash-like input never has it: the conversion fails


class Typed(msgspec.Struct):
    tool_input: Shape


async def guard_raises(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> None:
    raise ValueError("boom")


async def guard_invalid(
    input_data: dict[str, Any], tool_use_id: str | None, context: Any
) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "maybe"}}


async def guard_huge(
    input_data: dict[str, Any], tool_use_id: str | None, context: Any
) -> dict[str, Any]:
    return {"systemMessage": "x" * 2_000_000}  # past the 1 MiB an answer may take


async def guard_slow(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> None:
    await trio.sleep(30)


async def guard_typed(input_data: Typed, tool_use_id: str | None, context: Any) -> None:
    return None


class Opaque:
    """A value JSON has no form for."""


async def guard_unencodable(
    input_data: dict[str, Any], tool_use_id: str | None, context: Any
) -> dict[str, Any]:
    specific = {"hookEventName": "PreToolUse", "permissionDecision": "allow"}
    return {"hookSpecificOutput": {**specific, "updatedInput": {"command": Opaque()}}}


async def guard_none(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> None:
    return None


async def guard_full(
    input_data: dict[str, Any], tool_use_id: str | None, context: Any
) -> dict[str, Any]:
    return {
        "systemMessage": "said to the user",
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "not this one",
            "additionalContext": "said to the model",
        },
    }


CASES: dict[str, Callable[..., Any]] = {
    "Raises": guard_raises,
    "Invalid": guard_invalid,
    "Huge": guard_huge,
    "Slow": guard_slow,
    "Typed": guard_typed,
    "Unencodable": guard_unencodable,
    "Nothing": guard_none,
    "Full": guard_full,
}

hooks = {
    "PreToolUse": [
        HookMatcher(matcher=tool, hooks=[fn], timeout=1, on_failure=POLICY)
        for tool, fn in CASES.items()
    ]
}
