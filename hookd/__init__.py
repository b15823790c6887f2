"""hookd: serve Python agent hooks to Claude-style CLIs over their control protocol.

Write hooks as in the Claude Agent SDK::

    from hookd import HookMatcher, deny

    async def guard(input_data, tool_use_id, context):
        if "rm -rf" in input_data["tool_input"].get("command", ""):
            return deny("dangerous command")
        return None

    hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard], timeout=10)]}

or with the decorator: ``@hookd.hook("PreToolUse", matcher="Bash", timeout=5)``.

The names below are imported on first use, so that importing a submodule
(``hookd.testing.plugin``, loaded by pytest in every run) stays cheap.
"""

from __future__ import annotations

from hookd._version import __version__

TYPE_CHECKING = False  # without importing typing: `hookd up` and `hookd call` start fast
if TYPE_CHECKING:
    from typing import Any

    from hookd.core.api import (
        add_context,
        allow,
        ask,
        block,
        custom_event,
        deny,
        hook,
        runs_on,
        shadow,
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
    "shadow",
    "update_input",
]

_HOME = {
    "hookd.core.api": (
        "add_context",
        "allow",
        "ask",
        "block",
        "custom_event",
        "deny",
        "hook",
        "runs_on",
        "shadow",
        "update_input",
    ),
    "hookd.core.context": ("HookContext",),
    "hookd.core.registry": ("HookMatcher", "Registration", "Registry", "RetryPolicy"),
    "hookd.errors": ("HookAbortError", "HookdError", "RetryableHookError"),
}
_WHERE = {name: module for module, names in _HOME.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'hookd' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
