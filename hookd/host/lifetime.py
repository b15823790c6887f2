"""When hookd may close the CLI's stdin in ``hookd run``: the end of the run, not of a turn.

Sans-IO: fed the prompts hookd writes and the messages the CLI prints, it says
when the run is over. Closing stdin earlier breaks every later hook and
permission request ("Stream closed"); the CLI only ends once stdin is closed.

The run is over when no prompt input remains, a ``result`` arrived after the
last prompt written, and the CLI reports itself ``idle``. A CLI that reports
no session state (``system/session_state_changed``, asked for with
``CLAUDE_CODE_SDK_READS_SESSION_STATE=1``) is taken at its ``result``. A
prompt written while a turn runs may join that turn or start a turn of its
own; "idle" covers both, since the CLI reports it only once no turn is owed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["RunLifetime"]

IDLE = "idle"


@dataclass(slots=True)
class RunLifetime:
    """The host's view of one run; ``finished`` says stdin may be closed."""

    prompts: int = 0
    input_done: bool = False
    result_seen: bool = False
    state: str | None = None
    results: int = 0

    def prompt_sent(self) -> None:
        """A user message went to the CLI: it owes a result of its own."""
        self.prompts += 1
        self.result_seen = False

    def end_of_input(self) -> None:
        """No further prompt will be written."""
        self.input_done = True

    def observe(self, message: dict[str, Any]) -> bool:
        """Take note of one CLI message; True if it may change ``finished``."""
        match message.get("type"), message.get("subtype"):
            case "result", _:
                self.result_seen = True
                self.results += 1
                return True
            case "system", "session_state_changed":
                state = message.get("state")
                self.state = state if isinstance(state, str) else None
                return True
        return False

    @property
    def finished(self) -> bool:
        """No prompt input remains and the CLI owes no further turn."""
        if not self.input_done:
            return False
        if self.prompts == 0:
            return True
        return self.result_seen and self.state in (None, IDLE)

    @property
    def between_turns(self) -> bool:
        """A result arrived, but the CLI still reports work (background tasks)."""
        return self.input_done and self.result_seen and not self.finished
