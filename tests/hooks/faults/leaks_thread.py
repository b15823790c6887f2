"""Fault: a hook starts a non-daemon thread that never ends."""

from __future__ import annotations

import threading
from typing import Any

import hookd
from hookd import HookContext, HookMatcher
from tests.hooks.faults._healthy import healthy

Input = dict[str, Any]
_never = threading.Event()


def _leak() -> None:
    threading.Thread(target=_never.wait, name="leaked-by-a-hook", daemon=False).start()


@hookd.runs_on("trio")
async def leak_on_trio(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    _leak()
    return hookd.allow("leaked")


def leak_in_thread(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    _leak()
    return hookd.allow("leaked")


hooks = {
    "PreToolUse": [
        HookMatcher(matcher="Fault", hooks=[leak_on_trio]),
        HookMatcher(matcher="FaultThread", hooks=[leak_in_thread]),
        *healthy(),
    ]
}
