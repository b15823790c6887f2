"""``hookd install --agent AGENT`` and ``uninstall --agent AGENT``: the module's entries in
another agent CLI's hook file (Codex, Gemini CLI, Copilot CLI, Qwen Code, Droid).

The same daemon, port and install record as the module's Claude Code install: the
record remembers, per file, whether hookd created it (and the folders above it) and
its ``hooks`` object, and its mode, so ``uninstall`` takes back exactly what was added.
The file holds this machine's absolute paths (the shim, hookd, the module, the token
*file*), never a secret: it keeps its mode (0644 when new). Local scope refuses a file
that git tracks (the paths are of one machine) and has git ignore it otherwise; project
scope is refused (a shared file cannot name one machine's paths). OpenCode, Kilo CLI and pi
get hookd's plugin file instead of entries (:mod:`hookd.install.plugins`), recorded the same;
Cline one script per event in its hooks folder (:mod:`hookd.install.executables`), the folder
recorded. What Droid and Cline need checked or said besides: :mod:`hookd.install.agent_checks`.
"""

from __future__ import annotations

import json
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookd.agents import dialect
from hookd.daemon.paths import DaemonPaths, read_json, read_token, write_private
from hookd.daemon.project import forget_exclude, git_ignore, git_tracks
from hookd.install.agent_checks import before_write, notes_for
from hookd.install.agent_files import AGENT_CONFIGS, AgentConfig, AgentTarget, entries
from hookd.install.claude import (
    InstallError,
    check_writable,
    event_hooks,
    hookd_command,
    pick_port,
    read_settings,
    remember,
    remember_exclude,
)
from hookd.install.executables import check_scripts, install_scripts, remove_scripts, scripts
from hookd.install.plugins import (
    check_plugin,
    plugin_routes,
    plugin_text,
    remove_plugin,
    write_plugin,
)
from hookd.install.settings_file import (
    Found,
    backup_of,
    drop_made_dirs,
    missing_dirs,
    take_back,
    write_entries,
)

__all__ = ["AgentInstalled", "agent_file", "install_agent", "uninstall_agent"]


@dataclass(frozen=True, slots=True)
class AgentInstalled:
    agent: str
    path: Path
    events: list[str]  # the agent's names of the events routed
    never: list[str]  # the module's events the agent never sends (Claude's names)
    port: int
    notes: list[str]  # one line each: the port moved, git, trust
    kind: str = "entries"  # or "plugin": hookd's plugin file (hookd.install.plugins)


def config_of(agent: str, scope: str) -> AgentConfig:
    if scope == "project":
        raise InstallError(
            f"--scope project writes a shared file; for {agent} use --scope local or --scope user"
        )
    return AGENT_CONFIGS[agent]


def _within(scope: str, project: Path) -> Path | None:
    """Where no folder on the way to the file may be a link (see ``Where.within``)."""
    return project if scope == "local" else None


def agent_file(agent: str, scope: str, project: Path, key: str = "") -> Path:
    """``agent``'s hook file in ``scope`` (a plugin's: the module ``key``'s); a one-line error
    for a scope it cannot have, for a file (or its backup) hookd would write through a link,
    or for a file of the plugin's name that hookd did not write."""
    config = config_of(agent, scope)
    path = config.file(scope, project, key)
    if config.kind == "executables":  # a folder of the user's hooks, which git may track
        check_scripts(agent, path, key, _within(scope, project))
        return path
    if scope == "local" and git_tracks(path):
        raise InstallError(
            f"{path}: git tracks it, and a local install writes this machine's paths into it; "
            f"use --scope user"
        )
    check_writable(path, _within(scope, project))
    if config.kind == "plugin":
        check_plugin(path, key, _within(scope, project))
    return path


def install_agent(
    paths: DaemonPaths, agent: str, scope: str, project: Path, *, port: int | None, fail_open: bool
) -> AgentInstalled:
    """Write the module's entries into ``agent``'s hook file for ``scope``."""
    config = config_of(agent, scope)
    path = agent_file(agent, scope, project, paths.key)
    routed, handled = event_hooks(paths.module, route_all=False)
    events = [e for e in routed if e.event in handled]
    hookd = hookd_command()
    if len(hookd) != 1:
        raise InstallError(f"no hookd executable beside {hookd[0]}: reinstall hookd with pip")
    chosen, note = pick_port(paths, port)
    read_token(paths, create=True)  # the shim reads the file; the daemon renews it at each start
    within = _within(scope, project)
    if config.kind == "plugin":
        added: dict[str, Any] = plugin_routes(agent, events, fail_open=fail_open)
    else:
        target = AgentTarget(
            config, paths.key, chosen, paths.token, hookd[0], paths.module, fail_open, paths.ready
        )
        added = scripts(target, events) if config.kind == "executables" else entries(target, events)
    if not added:
        raise InstallError(f"{paths.module} has no hooks for an event {agent} sends")
    written: list[Path] = []  # the scripts (executables)
    if config.kind == "plugin":
        _write_plugin(paths, agent, path, chosen, hookd=hookd[0], routes=added,
                      fail_open=fail_open, within=within)  # fmt: skip
    elif config.kind == "executables":
        written = install_scripts(paths, agent, path, chosen, added, within=within)
    else:
        before_write(agent, path, added)
        _write(paths, config, path, chosen, added, within=within)
    notes = [note] if note is not None else []
    if scope == "local":
        ignored = [path] if config.kind == "plugin" else written or [path, backup_of(path)]
        said, exclude, lines = git_ignore(ignored, f"{agent} hooks of this machine (hookd)")
        remember_exclude(paths, path, exclude, lines)
        notes += [said] if said is not None else []
    trust = _trust(agent, scope, project)
    notes += [trust] if trust is not None else []
    notes += notes_for(agent, project, list(added), written)
    never = [e.event for e in events if dialect(agent).agent_event(e.event) is None]
    return AgentInstalled(agent, path, list(added), never, chosen, notes, config.kind)


def _write(
    paths: DaemonPaths,
    config: AgentConfig,
    path: Path,
    port: int,
    added: dict[str, Any],
    *,
    within: Path | None,
) -> None:
    made = missing_dirs(path.parent)
    files = (read_json(paths.record) or {}).get("settings")
    first = files.get(str(path)) if isinstance(files, dict) else None
    found = write_entries(path, config.shape, (paths.key,), added, secret=False, within=within,
                          first=first if isinstance(first, dict) else None)  # fmt: skip
    extra = {"agent": config.agent, "made_dirs": [str(d) for d in made]}
    remember(paths, path, port, found, within=within, extra=extra)


def _write_plugin(
    paths: DaemonPaths,
    agent: str,
    path: Path,
    port: int,
    *,
    hookd: str,
    routes: dict[str, Any],
    fail_open: bool,
    within: Path | None,
) -> None:
    made = missing_dirs(path.parent)
    text = plugin_text(agent, paths, port, hookd, routes, fail_open=fail_open)
    created = write_plugin(path, text, paths.key, within)
    extra = {"agent": agent, "kind": "plugin", "made_dirs": [str(d) for d in made]}
    found = Found(created, had_hooks=False, mode=None, restore=None)
    remember(paths, path, port, found, within=within, extra=extra)


def _trust(agent: str, scope: str, project: Path) -> str | None:
    """The one step the agent wants before it runs the hooks, or None."""
    if agent == "codex":
        home = Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")
        step = "approve the new hooks with /hooks in codex (codex exec: add "
        step += "--dangerously-bypass-hook-trust)"
        if scope == "local" and not _codex_trusts(home / "config.toml", project):
            step = (
                f'add [projects."{project}"] trust_level = "trusted" to {home / "config.toml"} '
                f"(codex reads a project's .codex/ only then), and {step}"
            )
        return f"hookd: codex runs hooks only once trusted: {step}"
    if agent == "gemini" and scope == "local" and _gemini_folder_trust():
        return (
            f"hookd: gemini runs project hooks only in a trusted folder: trust {project} when "
            "gemini asks (or with /permissions)"
        )
    return None


def _codex_trusts(config: Path, project: Path) -> bool:
    try:
        value = tomllib.loads(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    projects = value.get("projects")
    entry = projects.get(str(project)) if isinstance(projects, dict) else None
    return isinstance(entry, dict) and entry.get("trust_level") == "trusted"


def _gemini_folder_trust() -> bool:
    """Whether folder trust is on in the user's Gemini settings (its default)."""
    try:
        value = read_settings(Path.home() / ".gemini" / "settings.json", comments=True) or {}
    except InstallError:
        return True
    security = value.get("security")
    trust = security.get("folderTrust") if isinstance(security, dict) else None
    return not (isinstance(trust, dict) and trust.get("enabled") is False)


def uninstall_agent(
    paths: DaemonPaths, agent: str, scope: str, project: Path
) -> tuple[Path, int, list[str]]:
    """Remove the module's entries from ``agent``'s file: the file, how many entries went,
    and the other files the module is still installed in."""
    config = config_of(agent, scope)
    path = config.file(scope, project, paths.key)
    record = read_json(paths.record) or {}
    files = record.get("settings") if isinstance(record.get("settings"), dict) else {}
    assert isinstance(files, dict)
    mine = files.pop(str(path), None)
    mine = mine if isinstance(mine, dict) else {}
    within = _within(scope, project)
    if config.kind == "plugin":
        removed, left = remove_plugin(path, paths.key, within), False
    elif config.kind == "executables":
        removed, left = remove_scripts(agent, path, paths.key), False
    else:
        removed, left = take_back(path, config.shape, (paths.key,), mine, within=within)
    if not left:
        forget_exclude(mine)
    drop_made_dirs(mine)
    if record:  # the next uninstall (another agent's, another scope's) reads what is left
        write_private(paths.record, _dumps({**record, "settings": files}))
    return path, removed, sorted(files)


def _dumps(value: dict[str, Any]) -> bytes:
    return (json.dumps(value, indent=2) + "\n").encode()
