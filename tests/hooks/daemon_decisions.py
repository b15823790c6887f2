"""The hooks a real CLI session reaches to fill the decision log: ``guard`` denies commands
naming ``forbidden`` and allows the rest; the shadow hook ``watch`` would deny those naming
``shadowed``. ``tests/daemon/test_real_cli_decisions.py`` replays the log through this module
with ``@hookd.shadow`` taken out."""

from __future__ import annotations

from typing import Any

import hookd
from hookd import HookContext, HookMatcher, allow, deny

Input = dict[str, Any]


def command(input_data: Input) -> str:
    return str(input_data["tool_input"].get("command", ""))


async def guard(input_data: Input, tool_use_id: str | None, context: HookContext) -> Any:
    if "forbidden" in command(input_data):
        return deny("forbidden files stay unmade")
    return allow("not forbidden")


@hookd.shadow
async def watch(input_data: Input, tool_use_id: str | None, context: HookContext) -> Any:
    if "shadowed" in command(input_data):
        return deny("shadowed files would stay unmade")
    return None


hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard, watch])]}
