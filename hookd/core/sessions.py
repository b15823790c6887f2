"""Per-session ``state``: one dict per ``session_id``, freed at SessionEnd, capped in number.

hookd may live for days and see thousands of sessions. A session's state goes
when its ``SessionEnd`` hook has been answered; sessions that never end (a CLI
killed mid-run) are evicted oldest-idle first once more than the cap are kept.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Final

__all__ = ["MAX_SESSIONS", "SessionStates"]

#: Sessions whose state is kept at once; the one idle longest goes first.
MAX_SESSIONS: Final = 1024


class SessionStates(OrderedDict[str, dict[str, Any]]):
    """``session_id`` -> state dict, the session used least recently first."""

    def __init__(self, max_sessions: int = MAX_SESSIONS) -> None:
        super().__init__()
        if max_sessions < 1:
            raise ValueError("max_sessions must be at least 1")
        self.max_sessions = max_sessions

    def for_session(self, session_id: str | None) -> dict[str, Any]:
        """The session's state (made on first use); marks the session as just used."""
        key = session_id or ""
        state = self.get(key)
        if state is None:
            state = self[key] = {}
            while len(self) > self.max_sessions:
                self.popitem(last=False)
        else:
            self.move_to_end(key)
        return state

    def end(self, session_id: str | None) -> None:
        """Free the session's state (its SessionEnd was answered)."""
        self.pop(session_id or "", None)
