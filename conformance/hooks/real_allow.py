"""Reproduces ``v2.1.330_allow.jsonl``: PreToolUse allows with a reason."""

from __future__ import annotations

from typing import Any

from _real import Input, real_cli_hooks

from hookd import HookContext, HookMatcher, allow


async def allow_bash(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    return allow("hookd says allow")


hooks = real_cli_hooks(HookMatcher(matcher="Bash", hooks=[allow_bash]))
