"""What an entrance hands the kernel: one decoded call, in Claude Code's vocabulary.

An entrance decodes its wire (a ``hook_callback``, a ``hooks/dispatch``, an HTTP
POST, an agent's payload through its dialect, the testing kit's ``fire``) into a
:class:`HookCall`, or a ``can_use_tool`` question into a :class:`PermissionCall`,
and gives it to :meth:`hookd.engine.kernel.Kernel.handle`. Nothing else about the
entrance reaches the kernel: ``via`` only names it in the request log line.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from hookd import wire

__all__ = ["CAN_USE_TOOL", "HookCall", "PermissionCall"]

#: The event name a permission question is answered and recorded under.
CAN_USE_TOOL: Final = "can_use_tool"


class HookCall(msgspec.Struct, gc=False):  # one per call, never in a cycle: untracked
    """One decoded hook call: which event, its input, which hooks, since when, from whom.

    ``callback_id`` names the one hook the agent chose (``hook_callback``);
    without it hookd selects the event's hooks by their matchers and merges
    their answers. ``arrived`` is ``time.monotonic()`` when the request was
    read: every deadline runs from then. ``ask_permission`` adds the module's
    ``can_use_tool`` as one more hook of a PermissionRequest (for entrances
    whose agent never asks it directly, such as HTTP). ``agent_event`` and
    ``agent_tool`` are the agent's own names, when its dialect renamed them;
    ``shows_message``: the agent shows the answer's ``systemMessage`` to its user
    (a note for the session waits for an answer that can carry it otherwise).
    """

    event: str
    input: dict[str, Any]
    tool_use_id: str | None = None
    request_id: wire.RequestId | None = None
    arrived: float = 0.0
    callback_id: str | None = None
    agent: str = "claude"
    ask_permission: bool = False
    agent_event: str | None = None
    agent_tool: str | None = None
    via: str = "call"
    shows_message: bool = True

    @property
    def session_id(self) -> str | None:
        """The session the input names, if any."""
        found = self.input.get("session_id")
        return found if isinstance(found, str) else None


class PermissionCall(msgspec.Struct):
    """One ``can_use_tool`` question, decoded."""

    tool_name: str
    input: dict[str, Any]
    tool_use_id: str | None = None
    request_id: wire.RequestId | None = None
    arrived: float = 0.0
    suggestions: list[Any] | None = None
    blocked_path: str | None = None
    decision_reason: str | None = None
    agent_id: str | None = None
    agent: str = "claude"
    via: str = CAN_USE_TOOL

    def as_hook_call(self) -> HookCall:
        """The question as the call it is recorded as: ``can_use_tool`` with the tool."""
        data = {"tool_name": self.tool_name, "tool_input": self.input}
        return HookCall(
            CAN_USE_TOOL, data, self.tool_use_id, self.request_id, self.arrived,
            agent=self.agent, via=self.via,
        )  # fmt: skip
