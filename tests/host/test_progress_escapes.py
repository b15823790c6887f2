"""``hookd run``'s progress view prints the agent's commands and texts escaped (R-L40)."""

from __future__ import annotations

import pytest

from hookd.host.progress import Progress


@pytest.mark.req("R-L40")
def test_the_progress_view_escapes_what_the_agent_wrote() -> None:
    lines: list[str] = []
    progress = Progress(lines.append, clock=lambda: 1.0)
    command = "printf ok\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07\x9b31m\u202etxt"
    tool = {"type": "tool_use", "name": "Bash", "input": {"command": command}}
    text = {"type": "text", "text": "done\x1b]0;owned\x07"}
    progress.cli_message({"type": "assistant", "message": {"content": [tool, text]}})
    assert lines == [
        "  > Bash: printf ok\\x1b[2J\\x1b]52;c;cm0gLXJmIH4=\\x07\\x9b31m\\u202etxt",
        "  done\\x1b]0;owned\\x07",
    ]
