"""Hooks that fail until they are fixed, for the hook-health tests.

Each call appends a line to ``$HEALTH_DIR/calls`` (so a test sees whether it ran).
While ``$HEALTH_DIR/fixed`` does not exist, ``flaky`` (async, run inline) and
``flaky_sync`` (a thread) raise ``boom``; once it exists they add context.
``$HEALTH_POLICY`` sets their failure policy (``block``, the PreToolUse default,
or ``continue``). ``fine`` always answers.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from hookd import HookMatcher

POLICY: Any = os.environ.get("HEALTH_POLICY", "block")


def _called(name: str) -> bool:
    where = Path(os.environ["HEALTH_DIR"])
    with open(where / "calls", "a") as f:
        f.write(name + "\n")
    return (where / "fixed").exists()


def _context(text: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": text}}


async def flaky(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> Any:
    if not _called("flaky"):
        raise RuntimeError("boom")
    return _context("fixed")


def flaky_sync(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> Any:
    if not _called("flaky_sync"):
        raise RuntimeError("boom")
    return _context("fixed")


async def fine(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> Any:
    return _context("fine")


hooks = {
    "PreToolUse": [
        HookMatcher(matcher="Flaky", hooks=[flaky], on_failure=POLICY),
        HookMatcher(matcher="FlakySync", hooks=[flaky_sync], on_failure=POLICY),
        HookMatcher(matcher="Fine", hooks=[fine]),
    ]
}
