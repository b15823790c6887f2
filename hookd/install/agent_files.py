"""Where each agent CLI reads its hooks, and the entries that point it at the module's daemon.

Data first: one :class:`AgentConfig` per agent says which file (per scope), how its
hook entries are shaped and in which unit their timeout is. Every entry hookd
writes runs the command shim ``hookd/agents/hookd-agent.sh`` (bash built-ins: a few
milliseconds a call) and ends with the module's mark, ``#hookd=KEY``, a shell
comment: that is how a later install replaces the entries and ``uninstall``
removes them, leaving the rest of the file alone.

Every entry is a command, Qwen Code's too, although it also has http hooks: an
http hook fails open (a refused connection, a timeout, a non-2xx run the tool), it
cannot start a daemon that is down (after an idle exit or a reboot), and it would
carry the token itself, where the shim reads the token file and checks the port's
owner. The shim costs a few milliseconds more than an http hook; nothing measured
here gives a reason to trade that for failing open on the events that block nothing.

Entries route every tool of an event (no matcher): the daemon matches the module's
own matchers, so a matcher a later save adds is served without a new install.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from hookd.agents import BLOCKING, SHIM, dialect
from hookd.daemon.entry_text import Shape
from hookd.daemon.settings import START_BUDGET_S, EventHooks

__all__ = [
    "AGENT_CONFIGS", "OTHER_AGENTS", "AgentConfig", "AgentTarget", "entries",
]  # fmt: skip

JsonObject = dict[str, Any]
#: Qwen Code reads a command hook's timeout of 1000 or more as milliseconds.
_QWEN_MS_FROM = 1000


def _home(variable: str, folder: str) -> Path:
    given = os.environ.get(variable)
    return Path(given) if given else Path.home() / folder


def _same(seconds: int) -> int:
    return seconds


def _ms(seconds: int) -> int:
    return seconds * 1000


def _qwen(seconds: int) -> int:
    return seconds if seconds < _QWEN_MS_FROM else seconds * 1000


@dataclass(frozen=True, slots=True)
class AgentConfig:
    """One agent's hook file: where it is, and how an entry is shaped."""

    agent: str
    local: tuple[str, ...]  # the file's path in the project
    user: Callable[[], Path]  # the user's file
    timeout: Callable[[int], int] = _same  # seconds -> the agent's unit
    flat: bool = False  # handlers straight in the event's list, the command under "bash"
    skeleton: Mapping[str, Any] = field(default_factory=dict)  # what a new file holds
    lenient: str = "open"  # the shim's mode on events whose failure blocks nothing
    comments: bool = False  # the agent reads its file as JSON with comments

    @property
    def shape(self) -> Shape:
        return Shape(flat=self.flat, comments=self.comments, skeleton=self.skeleton)

    def path(self, scope: str, project: Path) -> Path:
        return project.joinpath(*self.local) if scope == "local" else self.user()


AGENT_CONFIGS: Mapping[str, AgentConfig] = MappingProxyType(
    {
        "codex": AgentConfig(
            "codex", (".codex", "hooks.json"), lambda: _home("CODEX_HOME", ".codex") / "hooks.json"
        ),
        "gemini": AgentConfig(
            "gemini",
            (".gemini", "settings.json"),
            lambda: Path.home() / ".gemini" / "settings.json",
            timeout=_ms,
            comments=True,  # Gemini CLI strips comments before it parses
        ),
        # Copilot CLI denies the tool when a hook exits non-zero: failing open is exit 0.
        "copilot": AgentConfig(
            "copilot",
            (".github", "hooks", "hookd.json"),
            lambda: _home("COPILOT_HOME", ".copilot") / "hooks" / "hookd.json",
            flat=True,
            skeleton=MappingProxyType({"version": 1}),
            lenient="pass",
        ),
        "qwen": AgentConfig(
            "qwen",
            (".qwen", "settings.json"),
            lambda: Path.home() / ".qwen" / "settings.json",
            timeout=_qwen,
            comments=True,
        ),
    }
)
#: The agents besides Claude Code that ``hookd install --agent`` writes for.
OTHER_AGENTS = tuple(AGENT_CONFIGS)


@dataclass(frozen=True, slots=True)
class AgentTarget:
    """What every entry of one install names: the daemon, the token file, hookd, the module."""

    config: AgentConfig
    key: str
    port: int
    token_file: Path
    hookd: str
    module: Path
    fail_open: bool
    ready_file: Path | None = None

    def command(self, agent_event: str, e: EventHooks) -> str:
        words = [
            "bash", SHIM, str(self.port), str(self.token_file),
            f"{self.config.agent}/{agent_event}", str(e.budget_s), self.mode(e),
            self.hookd, str(self.module),
            *([str(self.ready_file)] if self.ready_file is not None else []),
        ]  # fmt: skip
        return f"{shlex.join(words)} #hookd={self.key}"

    def mode(self, e: EventHooks) -> str:
        """closed: no answer blocks the action; else the agent's way of going on."""
        closed = e.blocks and e.event in BLOCKING and not self.fail_open
        return "closed" if closed else self.config.lenient

    def handler(self, agent_event: str, e: EventHooks) -> JsonObject:
        timeout = self.config.timeout(e.budget_s + START_BUDGET_S)  # room to start the daemon
        if self.config.flat:
            return {"type": "command", "bash": self.command(agent_event, e), "timeoutSec": timeout}
        return {"type": "command", "command": self.command(agent_event, e), "timeout": timeout}


def entries(target: AgentTarget, events: Iterable[EventHooks]) -> dict[str, list[JsonObject]]:
    """The entries to add, by the agent's event name; events the agent never sends are left out."""
    names = dialect(target.config.agent)
    out: dict[str, list[JsonObject]] = {}
    for e in events:
        theirs = names.agent_event(e.event)
        if theirs is None:
            continue
        handler = target.handler(theirs, e)
        out.setdefault(theirs, []).append(handler if target.config.flat else {"hooks": [handler]})
    return out
