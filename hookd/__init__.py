"""hookd: serve Python agent hooks to Claude-style CLIs over their control protocol.

Write hooks as in the Claude Agent SDK::

    from hookd import HookMatcher, deny

    async def guard(input_data, tool_use_id, context):
        if "rm -rf" in input_data["tool_input"].get("command", ""):
            return deny("dangerous command")
        return None

    hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard], timeout=10)]}

or with the decorator: ``@hookd.hook("PreToolUse", matcher="Bash", timeout=5)``.
"""

from hookd._version import __version__
from hookd.core.api import (
    add_context,
    allow,
    ask,
    block,
    custom_event,
    deny,
    hook,
    runs_on,
    update_input,
)
from hookd.core.context import HookContext
from hookd.core.registry import HookMatcher, Registration, Registry, RetryPolicy
from hookd.errors import HookAbortError, HookdError, RetryableHookError

__all__ = [
    "HookAbortError",
    "HookContext",
    "HookMatcher",
    "HookdError",
    "Registration",
    "Registry",
    "RetryPolicy",
    "RetryableHookError",
    "__version__",
    "add_context",
    "allow",
    "ask",
    "block",
    "custom_event",
    "deny",
    "hook",
    "runs_on",
    "update_input",
]
