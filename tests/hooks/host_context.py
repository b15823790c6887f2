"""``hookd run`` scenario: PreToolUse adds context for the model and decides nothing else."""

from __future__ import annotations

from typing import Any

from hookd import HookContext, HookMatcher, add_context, allow

CONTEXT = "ctx-from-hookd: the tests live in tests/"


async def inform(input_data: dict[str, Any], tool_use_id: str | None, ctx: HookContext) -> Any:
    out = allow("allowed by hookd")
    out["hookSpecificOutput"].update(add_context(CONTEXT)["hookSpecificOutput"])
    return out


hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[inform], timeout=10)]}
