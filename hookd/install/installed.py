"""What is installed where: the hook files a module's install record names, and the module's
entries in each, read back (never written here).

Each file is an agent's (Claude Code's settings, Codex's ``hooks.json``, ...) in one scope;
its entries are found by the module's mark, ``#hookd=KEY`` at the end of a command (the
``bash`` of Copilot's flat entries) or ``?hookd=KEY`` in an http hook's URL. A project-scope
Claude Code file marks them with the key of the module's path inside the project, the same
in every checkout. Files are read as JSON with comments (Gemini CLI and Qwen Code allow them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookd.daemon.here import inside, installed_files
from hookd.daemon.paths import DaemonPaths
from hookd.daemon.where import module_key
from hookd.install.agent_files import AGENT_CONFIGS
from hookd.install.executables import commands
from hookd.jsontext import Document, JsonTextError

__all__ = [
    "Entry", "HookFile", "entries_of", "file_entries", "hook_files", "read_object", "shown_path",
]  # fmt: skip

JsonObject = dict[str, Any]


def shown_path(path: Path, root: Path | None) -> str:
    """``path`` as a user reads it: relative to the project, ``~/...`` in the home folder."""
    if root is not None and inside(path, root):
        return path.relative_to(root).as_posix()
    home = Path.home()
    return f"~/{path.relative_to(home).as_posix()}" if inside(path, home) else str(path)


@dataclass(frozen=True, slots=True)
class HookFile:
    """One hook file an install wrote into: whose, which scope, and the project holding it."""

    path: Path
    agent: str  # claude, codex, gemini, copilot, qwen, opencode, kilo, pi
    scope: str  # local, project or user
    root: Path | None  # the project (None in user scope)

    @property
    def shown(self) -> str:
        return shown_path(self.path, self.root)

    @property
    def plugin(self) -> bool:
        """hookd's plugin file (OpenCode, Kilo CLI, pi), not entries in a JSON file."""
        return self.agent != "claude" and AGENT_CONFIGS[self.agent].kind == "plugin"

    def install(self, module: Path) -> str:
        """The command that installs ``module`` into this file again."""
        words = ["hookd", "install"]
        if self.agent != "claude":
            words += ["--agent", self.agent]
        if self.scope != "local":
            words += ["--scope", self.scope]
        return " ".join([*words, shown_path(module, self.root)])

    def keys(self, paths: DaemonPaths) -> tuple[str, ...]:
        """The marks the module's entries carry here."""
        if self.scope == "project" and self.root is not None and inside(paths.module, self.root):
            return (module_key(paths.module.relative_to(self.root).as_posix()), paths.key)
        return (paths.key,)


def _claude_file(path: Path) -> HookFile:
    if path == Path.home() / ".claude" / "settings.json":
        return HookFile(path, "claude", "user", None)
    scope = "project" if path.name == "settings.json" else "local"
    return HookFile(path, "claude", scope, path.parent.parent)


def _agent_file(path: Path, agent: str) -> HookFile:
    config = AGENT_CONFIGS[agent]
    user = config.user()  # a plugin's: named after the module's key, in that folder
    if path == user or (config.kind == "plugin" and path.parent == user.parent):
        return HookFile(path, agent, "user", None)
    return HookFile(path, agent, "local", path.parents[len(config.local) - 1])


def hook_files(module: Path) -> list[HookFile]:
    """The hook files the module's install record names, in the order it names them."""
    out = []
    for name, noted in installed_files(module).items():
        agent = noted.get("agent", "claude")
        if agent == "claude":
            out.append(_claude_file(Path(name)))
        elif isinstance(agent, str) and agent in AGENT_CONFIGS:
            out.append(_agent_file(Path(name), agent))
    return out


def read_object(path: Path) -> JsonObject | None:
    """The JSON object in ``path`` (comments allowed); None when there is no file; a
    ``ValueError`` saying why for one that is not a JSON object."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ValueError(f"{path}: {exc.strerror}") from None
    try:
        value = Document(data, comments=True).value
    except JsonTextError as exc:
        raise ValueError(f"{path}: not JSON ({exc})") from None
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"{path}: not a JSON object")
    return value


@dataclass(frozen=True, slots=True)
class Entry:
    """One handler of the module's: its event (the agent's name), where it is, what it says."""

    agent_event: str
    group: int  # the matcher group's index in the event's list (the handler's, when flat)
    index: int  # the handler's index in its group (0 when flat)
    handler: JsonObject
    matcher: str | None = None


def _ours(handler: Any, keys: tuple[str, ...]) -> bool:
    if not isinstance(handler, dict):
        return False
    for key in keys:
        url = handler.get("url")
        if handler.get("type") == "http" and isinstance(url, str):
            if re.search(rf"[?&]hookd={re.escape(key)}(?:&|$)", url):
                return True
            continue
        command = handler.get("command", handler.get("bash"))
        if isinstance(command, str) and re.search(rf" #hookd={re.escape(key)}\s*$", command):
            return True
    return False


def entries_of(
    value: JsonObject, keys: tuple[str, ...], *, flat: bool, root: bool = False
) -> list[Entry]:
    """The module's handlers in a hook file's object (``flat``: Copilot's shape; ``root``: the
    object is the event map, Droid's)."""
    hooks = value if root else value.get("hooks")
    if not isinstance(hooks, dict):
        return []
    out = []
    for event, items in hooks.items():
        for g, item in enumerate(items if isinstance(items, list) else ()):
            if flat:
                if _ours(item, keys):
                    out.append(Entry(event, g, 0, item))
                continue
            handlers = item.get("hooks") if isinstance(item, dict) else None
            matcher = item.get("matcher") if isinstance(item, dict) else None
            for i, handler in enumerate(handlers if isinstance(handlers, list) else ()):
                if _ours(handler, keys):
                    shown = matcher if isinstance(matcher, str) and matcher else None
                    out.append(Entry(event, g, i, handler, shown))
    return out


def file_entries(file: HookFile, keys: tuple[str, ...]) -> tuple[JsonObject, list[Entry]]:
    """The hook file's object and the module's entries in it, whatever the agent's shape (a
    folder of scripts, Cline's: no object, one entry per script); a ``ValueError`` saying why
    for a file that cannot be read."""
    config = AGENT_CONFIGS.get(file.agent)
    if config is not None and config.kind == "executables":
        found = commands(file.agent, file.path, keys)
        return {}, [Entry(e, 0, 0, {"type": "command", "command": c}) for e, c in found.items()]
    value = read_object(file.path) or {}
    root = config is not None and config.root
    return value, entries_of(value, keys, flat=file.agent == "copilot", root=root)
