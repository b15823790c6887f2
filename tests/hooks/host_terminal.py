"""``hookd run`` scenario: the permission callback asks the user with ``input()``.

"y" allows the command; anything else denies it. Without a terminal ``input()``
raises, and the CLI gets an error answer naming why.
"""

from __future__ import annotations

from typing import Any


def can_use_tool(tool_name: str, tool_input: dict[str, Any], context: Any) -> dict[str, Any]:
    answer = input(f"Allow {tool_name}: {tool_input.get('command')}? (y/N) ").strip().lower()
    if answer == "y":
        return {"behavior": "allow", "updatedInput": tool_input}
    return {"behavior": "deny", "message": f"the user answered {answer!r}"}
