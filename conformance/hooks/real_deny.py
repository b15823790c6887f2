"""Reproduces ``v2.1.330_deny.jsonl``: PreToolUse denies with a reason."""

from __future__ import annotations

from typing import Any

from _real import Input, real_cli_hooks

from hookd import HookContext, HookMatcher, deny


async def deny_bash(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    return deny("hookd says deny")


hooks = real_cli_hooks(HookMatcher(matcher="Bash", hooks=[deny_bash]))
