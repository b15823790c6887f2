"""What the CLI itself measured of each hook, from its debug log (``--debug-file``).

A command hook is one line, ``Hooks: EVENT [COMMAND] finished with status N (Mms)``;
an http hook is the time from ``Hooks: HTTP hook POST to URL`` to the next
``Hooks: HTTP hook response status`` (the log's millisecond timestamps).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

__all__ = ["HookTimes", "hook_times"]

_LINE = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+)Z \[\w+\] Hooks: (.*)$")
_FINISHED = re.compile(r"\] finished with status \d+ \((\d+)ms\)$")


@dataclass
class HookTimes:
    """One session's hooks as the CLI timed them, in milliseconds."""

    command_ms: list[float] = field(default_factory=list)
    http_ms: list[float] = field(default_factory=list)

    @property
    def total_ms(self) -> float:
        return sum(self.command_ms) + sum(self.http_ms)


def hook_times(log: Path) -> HookTimes:
    """The hook runs of one debug log."""
    times = HookTimes()
    posted: list[datetime] = []
    for line in log.read_text(errors="replace").splitlines():
        match = _LINE.match(line)
        if match is None:
            continue
        stamp, text = datetime.fromisoformat(match[1]), match[2]
        finished = _FINISHED.search(text)
        if finished is not None:
            times.command_ms.append(float(finished[1]))
        elif text.startswith("HTTP hook POST to "):
            posted.append(stamp)
        elif text.startswith("HTTP hook response status") and posted:
            times.http_ms.append((stamp - posted.pop(0)).total_seconds() * 1000)
    return times
