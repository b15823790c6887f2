"""Deliberately wrong for ``v2.1.330_allow.jsonl``: one answer differs from the recording.

Replaying that transcript with this module must fail, naming the PreToolUse
request and ``response.response.hookSpecificOutput.permissionDecisionReason``.
The conformance suite does not use it; ``tests/test_replay.py`` does.
"""

from __future__ import annotations

from typing import Any

from _real import Input, real_cli_hooks

from hookd import HookContext, HookMatcher, allow


async def allow_bash(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    return allow("hookd says maybe")


hooks = real_cli_hooks(HookMatcher(matcher="Bash", hooks=[allow_bash]))
