"""Fault: a hook returns a 50 MB output (refused as its invalid output, R-133)."""

from __future__ import annotations

from typing import Any

import hookd
from hookd import HookContext, HookMatcher
from tests.hooks.faults._healthy import healthy

Input = dict[str, Any]
SIZE = 50_000_000


@hookd.runs_on("trio")
async def huge(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    return hookd.allow("x" * SIZE)


hooks = {"PreToolUse": [HookMatcher(matcher="Fault", hooks=[huge], timeout=60), *healthy()]}
