"""The payload an agent CLI sends for an event, built for the kit from Claude's realistic input.

``event`` may be the agent's own name (``"BeforeTool"``, Copilot's
``"PreToolUse"`` for its PascalCase payload) or Claude's (``"PreToolUse"``:
the agent's first name for it, e.g. Copilot's camelCase ``"preToolUse"``).
``fields`` are Claude's (``tool_name="Bash"``, ``tool_input=...``): the kit
builds Claude's input and turns it into the agent's payload with the
dialect's tables backwards, so a test speaks one vocabulary for every agent.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from hookd.agents import Dialect, payload

__all__ = ["AgentPayload", "agent_payload"]

InputBuilder = Callable[..., dict[str, Any]]


@dataclass(frozen=True, slots=True)
class AgentPayload:
    dialect: Dialect
    agent_event: str
    payload: dict[str, Any]


def agent_payload(
    dialect: Dialect,
    event: str,
    build: InputBuilder,
    extra: Mapping[str, Any] | None,
    fields: Mapping[str, Any],
) -> AgentPayload:
    """The agent's event name and payload for ``event`` with Claude's ``fields``."""
    claude_event = dialect.claude_event(event)
    agent_event: str | None = event
    if claude_event is None:
        claude_event, agent_event = event, dialect.agent_event(event)
    if agent_event is None:
        raise ValueError(f"{dialect.agent} sends no event for Claude's {event}")
    data = build(claude_event, extra=extra, **fields)
    return AgentPayload(dialect, agent_event, payload(dialect, claude_event, data, agent_event))
