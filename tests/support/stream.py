"""Reading the stream-json messages a Claude Code session printed."""

from __future__ import annotations

from typing import Any

__all__ = ["JsonObject", "StreamMessages", "tool_results"]

JsonObject = dict[str, Any]


def tool_results(messages: list[JsonObject]) -> list[JsonObject]:
    """Every tool_result block of the session's user messages, in order."""
    return [
        block
        for m in messages
        if m.get("type") == "user"
        for block in m["message"]["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]


class StreamMessages:
    """Queries over ``self.messages``, the session's parsed stream-json lines."""

    messages: list[JsonObject]

    def of_type(self, kind: str) -> list[JsonObject]:
        return [m for m in self.messages if m.get("type") == kind]

    @property
    def result(self) -> JsonObject:
        (result,) = self.of_type("result")
        return result

    def tool_results(self) -> list[JsonObject]:
        return tool_results(self.messages)
