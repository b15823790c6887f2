"""A hooks module with a UserPromptSubmit hook that adds context to every prompt."""

from __future__ import annotations

from typing import Any

from hookd import HookMatcher, add_context


async def rules(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> Any:
    return add_context("prompt-context-from-the-daemon", event="UserPromptSubmit")


hooks = {"UserPromptSubmit": [HookMatcher(hooks=[rules], timeout=5)]}
