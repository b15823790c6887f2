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

OpenCode, Kilo CLI and pi run no command hooks: their rows are of the ``plugin`` kind, a file
hookd generates in the agent's plugin folder (:mod:`hookd.install.plugins`), named after the
module's key. Droid's ``hooks.json`` holds entries with the event map at its root (``root``);
Cline's row is of the ``executables`` kind, one script per event in its hooks folder
(:mod:`hookd.install.executables`), whose shim prints a cancel when it cannot answer.
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


#: The name of hookd's plugin file, one per module (its key).
_PLUGIN = "hookd-{key}.ts"


def _config_home() -> Path:
    given = os.environ.get("XDG_CONFIG_HOME")
    return Path(given) if given and os.path.isabs(given) else Path.home() / ".config"


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
    #: "entries": hookd's entries in the agent's JSON file; "plugin": a file hookd generates
    #: (hookd/install/plugins.py), named after the module's key (``{key}`` in the name);
    #: "executables": one small script per event in the agent's hooks folder (the path: the
    #: folder; hookd/install/executables.py)
    kind: str = "entries"
    root: bool = False  # the file's root is the event map (Droid's hooks.json)
    commas: bool = True  # the agent reads a file with trailing commas (Droid ignores it)
    strict: str = "closed"  # the shim's mode where no answer must block the action

    @property
    def shape(self) -> Shape:
        return Shape(flat=self.flat, comments=self.comments, skeleton=self.skeleton,
                     root=self.root, commas=self.commas)  # fmt: skip

    def path(self, scope: str, project: Path) -> Path:
        return project.joinpath(*self.local) if scope == "local" else self.user()

    def file(self, scope: str, project: Path, key: str) -> Path:
        """The file of the module whose key is ``key`` (the plugin's name holds it)."""
        path = self.path(scope, project)
        return path.with_name(path.name.format(key=key)) if self.kind == "plugin" else path


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
        # The shim, not Copilot's http hooks (1.0.102): an http preToolUse runs the tool on a
        # timeout or a body that is not JSON, and was slower (a denied call 53 ms median
        # against the shim's 28 ms, same warm daemon): tests/agents/real/test_copilot_http.py.
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
        # OpenCode, Kilo CLI and pi run no command hooks: hookd writes its plugin instead
        "opencode": AgentConfig(
            "opencode",
            (".opencode", "plugins", _PLUGIN),
            lambda: _config_home() / "opencode" / "plugins" / _PLUGIN,
            kind="plugin",
        ),
        "kilo": AgentConfig(
            "kilo",
            (".kilo", "plugins", _PLUGIN),
            lambda: _config_home() / "kilo" / "plugins" / _PLUGIN,
            kind="plugin",
        ),
        "pi": AgentConfig(
            "pi",
            (".pi", "extensions", _PLUGIN),
            lambda: _home("PI_CODING_AGENT_DIR", ".pi/agent") / "extensions" / _PLUGIN,
            kind="plugin",
        ),
        # Droid: the event map is the file's root; JSON with comments, but a trailing comma
        # makes it ignore the whole file; seconds; exit 1 fails open, so hookd exits 2
        "droid": AgentConfig(
            "droid",
            (".factory", "hooks.json"),
            lambda: Path.home() / ".factory" / "hooks.json",
            comments=True,
            root=True,
            commas=False,
        ),
        # Cline: a script per event in its hooks folder; it reads only stdout (any exit lets
        # the tool run), so a blocking event's failure is a printed cancel
        "cline": AgentConfig(
            "cline",
            (".clinerules", "hooks"),
            lambda: _home("CLINE_DIR", ".cline") / "hooks",
            kind="executables",
            strict="cancel",
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
        return self.config.strict if closed else self.config.lenient

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
