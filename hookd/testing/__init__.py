"""The hook author's kit: test hooks with pytest, pin recorded sessions in CI.

::

    import hookd.testing

    def test_guard_denies_rm_rf():
        hooks = hookd.testing.load("hooks.py")
        result = hooks.fire_sync("PreToolUse", tool_name="Bash", tool_input={"command": "rm -rf /"})
        assert result.decision == "deny"

``await hooks.fire(...)`` does the same in an async test (pytest-trio, with its
fake clock; pytest-asyncio or anyio too). Installed hookd also registers a
pytest plugin (:mod:`hookd.testing.plugin`): the ``hookd_hooks`` and
``hookd_replay`` fixtures and the ``hookd_replay`` marker.

Names are imported on first use: the plugin, which pytest imports in every run,
stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hookd.testing.harness import Hooks, load
    from hookd.testing.inputs import OMIT, InputError
    from hookd.testing.permission import PermissionResult
    from hookd.testing.pinning import ReplayMismatch, assert_replays, replay_transcript
    from hookd.testing.result import FireResult, HookOutcome

__all__ = [
    "OMIT",
    "FireResult",
    "HookOutcome",
    "Hooks",
    "InputError",
    "PermissionResult",
    "ReplayMismatch",
    "assert_replays",
    "load",
    "replay_transcript",
]

_HOME = {
    "hookd.testing.harness": ("Hooks", "load"),
    "hookd.testing.inputs": ("OMIT", "InputError"),
    "hookd.testing.permission": ("PermissionResult",),
    "hookd.testing.pinning": ("ReplayMismatch", "assert_replays", "replay_transcript"),
    "hookd.testing.result": ("FireResult", "HookOutcome"),
}
_WHERE = {name: module for module, names in _HOME.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'hookd.testing' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
