"""``destructive_commands()``: the ready guard for shell tools, a hook like any other."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from hookd.core.api import block, deny
from hookd.guards.check import Checker

__all__ = ["destructive_commands"]

Hook = Callable[[dict[str, Any], "str | None", Any], Awaitable["dict[str, Any] | None"]]
_DECIDING = ("PreToolUse", "PermissionRequest")


def destructive_commands(
    *,
    allow: Iterable[str] = (),
    strict: bool = False,
    packs: Iterable[str] | None = None,
    disable: Iterable[str] = (),
) -> Hook:
    """A hook that denies shell commands destroying work that cannot be recovered.

    Use it on the Bash tool (every agent's shell tool arrives as ``Bash``)::

        hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[destructive_commands()])]}

    ``allow``: folders where recursive deletion is fine, besides the system's temporary
    folders (absolute, ``~/...``, or relative to the session's working folder: ``"build"``).
    ``strict``: also deny a line that does not parse and a command whose program is not known
    before it runs (``$cmd -rf x``). ``packs``: the rule packs on (default: all of
    ``filesystem``, ``permissions``, ``disk``, ``git``, ``code``); ``disable``: packs or rule
    ids to switch off (``disable=["git-push-force"]``). The deny reason names the rule and the
    offending command; ``hookd guard COMMAND`` shows what it decides, without an agent.
    """
    checker = Checker.make(allow=allow, strict=strict, packs=packs, disable=disable)

    async def guard(
        input_data: dict[str, Any], tool_use_id: str | None, context: Any
    ) -> dict[str, Any] | None:
        tool_input = input_data.get("tool_input")
        command = tool_input.get("command") if isinstance(tool_input, dict) else None
        if not isinstance(command, str):
            return None
        cwd = input_data.get("cwd")
        report = checker.check(command, cwd if isinstance(cwd, str) else None)
        if not report.denied:
            return None
        reason = report.reason()
        event = input_data.get("hook_event_name", "PreToolUse")
        return deny(reason, event=event) if event in _DECIDING else block(reason)

    guard.__name__ = guard.__qualname__ = "destructive_commands"
    guard.__doc__ = destructive_commands.__doc__
    return guard
