"""The demo hooks module: a guard, an audit logger and a context injector.

Serve it with ``hookd serve examples/guard.py``; ``hookd demo`` drives it.
Written in the Claude Agent SDK's shape, so the same code runs under the SDK.
"""

from __future__ import annotations

import re
import sys
import time
from typing import Any

import hookd
from hookd import HookContext, HookMatcher, add_context, deny

DANGEROUS = [
    (re.compile(r"\brm\s+-[a-zA-Z]*r[a-zA-Z]*f?\s+/(\s|$)"), "recursive delete of /"),
    (re.compile(r"\bcurl\b[^|]*\|\s*(ba|z)?sh\b"), "piping a download into a shell"),
    (re.compile(r"\bmkfs(\.\w+)?\b"), "formatting a file system"),
    (re.compile(r":\(\)\s*\{\s*:\|:&\s*\};:"), "fork bomb"),
]


async def guard(
    input_data: dict[str, Any], tool_use_id: str | None, context: HookContext
) -> dict[str, Any] | None:
    """Deny Bash commands that match a known-dangerous pattern."""
    command = str(input_data.get("tool_input", {}).get("command", ""))
    for pattern, why in DANGEROUS:
        if pattern.search(command):
            return deny(f"blocked by guard: {why}")
    return None


def audit(
    input_data: dict[str, Any], tool_use_id: str | None, context: HookContext
) -> dict[str, Any]:
    """Record every finished tool call in the session's state (runs in a thread)."""
    calls = context.state.setdefault("tool_calls", [])
    calls.append((time.time(), input_data.get("tool_name"), tool_use_id))
    print(f"audit: {input_data.get('tool_name')} #{len(calls)}", file=sys.stderr)
    return {}


@hookd.hook("UserPromptSubmit", timeout=5)
async def inject_context(
    input_data: dict[str, Any], tool_use_id: str | None, context: HookContext
) -> dict[str, Any]:
    """Tell the model which repository rules apply, on every prompt."""
    return add_context("House rules: run the tests before you commit.", event="UserPromptSubmit")


hooks = {
    "PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard], timeout=10)],
    "PostToolUse": [HookMatcher(hooks=[audit])],
}
