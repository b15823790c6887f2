"""``hookd run`` scenario: a PreToolUse hook slower than its 2 s timeout.

hookd answers for it (a block, by its failure policy) before the CLI's own
deadline, so the CLI never cancels the request.
"""

from __future__ import annotations

from typing import Any

import trio

from hookd import HookContext, HookMatcher


async def dawdle(input_data: dict[str, Any], tool_use_id: str | None, ctx: HookContext) -> Any:
    await trio.sleep_forever()


hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[dawdle], timeout=2, on_failure="block")]}
