"""Agent CLI dialects: each agent's events, tools and fields mapped onto Claude Code's.

One module per agent (:mod:`~hookd.agents.claude`, :mod:`~hookd.agents.codex`,
:mod:`~hookd.agents.gemini`, :mod:`~hookd.agents.copilot`,
:mod:`~hookd.agents.qwen`; OpenCode and Kilo CLI, :mod:`~hookd.agents.opencode`,
and pi, :mod:`~hookd.agents.pi`, through hookd's plugins; Factory Droid,
:mod:`~hookd.agents.droid`, and Cline, :mod:`~hookd.agents.cline`), each a
:class:`~hookd.agents.dialect.Dialect` table with its encoder beside it; :data:`DIALECTS`
names them.
"""

from __future__ import annotations

import os
from types import MappingProxyType
from typing import Final

from hookd.agents import claude, cline, codex, copilot, droid, gemini, opencode, pi, qwen
from hookd.agents.dialect import BLOCKING, Dialect, Encoded, Unsupported, payload

#: The command shim an agent's config calls (bash built-ins; see its header).
SHIM: Final = os.path.join(os.path.dirname(__file__), "hookd-agent.sh")

__all__ = [
    "AGENTS",
    "BLOCKING",
    "DIALECTS",
    "SHIM",
    "Dialect",
    "Encoded",
    "Unsupported",
    "dialect",
    "payload",
]

DIALECTS: Final = MappingProxyType(
    {
        d.agent: d
        for d in (
            claude.DIALECT,
            codex.DIALECT,
            gemini.DIALECT,
            copilot.DIALECT,
            qwen.DIALECT,
            opencode.DIALECT,
            opencode.KILO,
            pi.DIALECT,
            droid.DIALECT,
            cline.DIALECT,
        )
    }
)
AGENTS: Final = tuple(DIALECTS)


def dialect(agent: str) -> Dialect:
    """The dialect of ``agent``; a one-line ``ValueError`` naming the known ones otherwise."""
    found = DIALECTS.get(agent)
    if found is None:
        raise ValueError(f"unknown agent {agent!r}: expected one of {', '.join(AGENTS)}")
    return found
