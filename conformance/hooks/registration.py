"""Registration order for the ``initialize`` case: decorators first, then ``hooks``.

=======  ============  ============  =======  ==========  ==========
id       event         matcher       timeout  on_failure  callback
=======  ============  ============  =======  ==========  ==========
hook_1   PreToolUse    Bash          10       block       guard
hook_2   SessionStart  (none)        30       continue    greet
hook_3   PreToolUse    Write|Edit    5        continue    check_write
hook_4   PreToolUse    Write|Edit    5        continue    log_write
hook_5   Stop          (none)        30       continue    final_check (sequential)
hook_6   PostToolUse   (none)        30       continue    audit
=======  ============  ============  =======  ==========  ==========

Each callback answers its own name as ``systemMessage``.
"""

from __future__ import annotations

from typing import Any

from hookd import HookContext, HookMatcher, hook

Input = dict[str, Any]


@hook("PreToolUse", matcher="Bash", timeout=10)
async def guard(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    return {"systemMessage": "guard"}


@hook("SessionStart")
async def greet(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    return {"systemMessage": "greet"}


async def check_write(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    return {"systemMessage": "check_write"}


async def log_write(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    return {"systemMessage": "log_write"}


async def final_check(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    return {"systemMessage": "final_check"}


async def audit(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    return {"systemMessage": "audit"}


hooks = {
    "PreToolUse": [
        HookMatcher(
            matcher="Write|Edit", hooks=[check_write, log_write], timeout=5, on_failure="continue"
        )
    ],
    "Stop": [HookMatcher(hooks=[final_check], sequential=True)],
    "PostToolUse": [HookMatcher(hooks=[audit])],
}
