"""Host scenario: a UserPromptSubmit hook blocks the prompt."""

from __future__ import annotations

from typing import Any

import hookd
from hookd import HookContext, HookMatcher


async def no_secrets(input_data: dict[str, Any], tool_use_id: str | None, ctx: HookContext) -> Any:
    return hookd.block("prompts about secrets are not allowed")


hooks = {"UserPromptSubmit": [HookMatcher(hooks=[no_secrets])]}
