"""A Bash guard that an input can make raise or hang, for the hook-health tests.

``guard`` (async, run inline) and ``guard_sync`` (a thread) read the command with
``shlex.split``, so an unbalanced quote makes them raise; a command holding ``hang``
makes them wait past their timeout (``$HEALTH_TIMEOUT`` seconds, default 0.5) until
``$HEALTH_DIR/fixed`` exists; ``rm -rf`` is denied with the guard's own reason;
anything else is allowed with a note. Each call appends a line to
``$HEALTH_DIR/calls`` (so a test sees whether it ran). ``$HEALTH_POLICY`` sets their
failure policy (``block``, the PreToolUse default, or ``continue``).
"""

from __future__ import annotations

import os
import shlex
import time
from pathlib import Path
from typing import Any

import trio

from hookd import HookMatcher

POLICY: Any = os.environ.get("HEALTH_POLICY", "block")
TIMEOUT_S = float(os.environ.get("HEALTH_TIMEOUT", "0.5"))
DENIED = "guard: rm -rf is not allowed here"


def _where() -> Path:
    return Path(os.environ["HEALTH_DIR"])


def _called(name: str) -> None:
    with open(_where() / "calls", "a") as f:
        f.write(name + "\n")


def _verdict(command: str) -> dict[str, Any]:
    words = shlex.split(command)  # raises on an unbalanced quote
    if "rm" in words and "-rf" in words:
        specific = {"permissionDecision": "deny", "permissionDecisionReason": DENIED}
    else:
        specific = {"permissionDecision": "allow", "permissionDecisionReason": "guard: fine"}
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", **specific}}


def _command(input_data: dict[str, Any]) -> str:
    return str(input_data["tool_input"]["command"])


async def guard(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> Any:
    _called("guard")
    command = _command(input_data)
    while "hang" in command and not (_where() / "fixed").exists():
        await trio.sleep(0.05)
    return _verdict(command)


def guard_sync(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> Any:
    _called("guard_sync")
    command = _command(input_data)
    while "hang" in command and not (_where() / "fixed").exists() and not context.cancelled:
        time.sleep(0.02)
    return _verdict(command)


async def fine(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> Any:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "fine"}}


hooks = {
    "PreToolUse": [
        HookMatcher(matcher="Guard", hooks=[guard], on_failure=POLICY, timeout=TIMEOUT_S),
        HookMatcher(matcher="GuardSync", hooks=[guard_sync], on_failure=POLICY, timeout=TIMEOUT_S),
        HookMatcher(matcher="Fine", hooks=[fine]),
    ]
}
