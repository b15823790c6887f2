"""What a hooks module holds besides a ``hooks`` dict: SDK options and the permission callback.

Claude Agent SDK code keeps its configuration in a ``ClaudeAgentOptions(hooks=...,
can_use_tool=...)`` object. A module-level one is read like the SDK reads it,
without importing the SDK: any module-level object (not a class) with both a
``hooks`` and a ``can_use_tool`` attribute is taken for one.
"""

from __future__ import annotations

import inspect
from types import ModuleType
from typing import Any

from hookd.core.registration import HookCallable, RegistrationError

__all__ = ["PERMISSION_NAME", "find_options", "hooks_of", "permission_callback"]

#: The module-level name of the permission callback unless another is named.
PERMISSION_NAME = "can_use_tool"


def _looks_like_options(value: Any) -> bool:
    if inspect.isclass(value) or inspect.ismodule(value):
        return False
    return hasattr(value, "hooks") and hasattr(value, "can_use_tool")


def find_options(module: ModuleType, spec: str) -> Any | None:
    """The module's one ``ClaudeAgentOptions``-shaped object, or None.

    Two or more are refused: which one the CLI should get is not for hookd to guess.
    """
    found = [(n, v) for n, v in vars(module).items() if _looks_like_options(v)]
    if len(found) > 1:
        names = ", ".join(n for n, _ in found)
        raise RegistrationError(
            f"{spec}: several ClaudeAgentOptions ({names}); keep one, or define a "
            "module-level `hooks` dict"
        )
    return found[0][1] if found else None


def hooks_of(module: ModuleType, options: Any | None) -> Any | None:
    """The hooks to register: the module's ``hooks`` dict, else the options' ``hooks``."""
    hooks = getattr(module, "hooks", None)
    if hooks is None and options is not None:
        hooks = getattr(options, "hooks", None)
    return hooks


def permission_callback(
    module: ModuleType, spec: str, options: Any | None, name: str | None = None
) -> HookCallable | None:
    """The permission callback: ``name`` if given, else ``can_use_tool``, else the options'."""
    if name is not None:
        found = getattr(module, name, None)
        if found is None:
            raise RegistrationError(
                f"{spec}: no {name!r} to use as can_use_tool{_hint(module, name)}"
            )
        where = name
    else:
        found = getattr(module, PERMISSION_NAME, None)
        where = PERMISSION_NAME
        if found is None and options is not None:
            found = getattr(options, "can_use_tool", None)
            where = "ClaudeAgentOptions.can_use_tool"
    if found is not None and not callable(found):
        raise RegistrationError(f"{spec}: {where} must be callable")
    return found


def _hint(module: ModuleType, name: str) -> str:
    callables = [n for n, v in vars(module).items() if callable(v) and not n.startswith("_")]
    import difflib  # only for a name that is not there

    close = difflib.get_close_matches(name, callables, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""
