"""Claude Code: the identity dialect. Hooks are written in its vocabulary, so nothing is renamed.

=================  ===================================================
Claude Code        hookd
=================  ===================================================
every event        the same event, the same input
every tool         the same tool
answer             the merged output as it is (empty output: no stdout)
hookd cannot run   blocking event: exit 2, one line on stderr;
                   other events: exit 1 (shown, not obeyed)
=================  ===================================================
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

from hookd.agents.dialect import Dialect, Encoded, dumps, failed_closed
from hookd.engine.call import HookCall
from hookd.engine.verdict import Verdict
from hookd.events import EVENTS

__all__ = ["DIALECT"]


def encode(verdict: Verdict, call: HookCall) -> Encoded:
    """The merged output, with a note per hook that failed under ``continue``."""
    failed = failed_closed(verdict, "Claude Code")
    if failed is not None:
        return failed
    return Encoded(dumps(verdict.with_notes()))


DIALECT: Final = Dialect(
    "claude",
    events=MappingProxyType({name: name for name in EVENTS}),
    tools=MappingProxyType({}),
    encoder=encode,
)
