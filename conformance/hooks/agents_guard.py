"""The guard the agent CLIs' recordings ran: one module, in Claude Code's vocabulary.

A Bash command holding ``rm -rf`` is denied with a reason naming hookd and the agent it came
from; every other Bash command is allowed by saying nothing. A prompt gets a line of context.
"""

from __future__ import annotations

from typing import Any

from hookd import HookContext, HookMatcher, add_context, deny

Input = dict[str, Any]
REASON = "hookd-guard: rm -rf is not allowed here"


async def guard(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    command = str(input_data.get("tool_input", {}).get("command", ""))
    if "rm -rf" in command:
        return deny(f"{REASON} (asked by {ctx.agent})")
    return None


async def prompt_context(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    return add_context("hookd-guard is watching this session", event="UserPromptSubmit")


hooks = {
    "PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard], timeout=10)],
    "UserPromptSubmit": [HookMatcher(hooks=[prompt_context])],
}
