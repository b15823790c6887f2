"""``hookd doctor``: for the project the user is in, which agents are set up to call hookd, and
whether each one will.

Every install record is read; each hook file it names in this project (or in the user's
home: those hooks run in every project) is one :class:`Install`, checked in turn: its
entries are there, the module is a file, the daemon runs (and serves the last save), the
token the agent sends is the one the daemon takes, the module's events are all routed, the
agent trusts the hooks (Codex, Gemini CLI), and the agent's own settings do not turn its
hooks off (:mod:`hookd.install.agent_state`). A check that fails says what to run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hookd.daemon.here import installed_modules
from hookd.daemon.paths import DaemonPaths, daemon_paths, port_field, read_json, read_token
from hookd.daemon.probe import Running, probe
from hookd.daemon.where import HOST
from hookd.install import agent_state
from hookd.install.installed import (
    Entry,
    HookFile,
    entries_of,
    file_entries,
    hook_files,
    shown_path,
)
from hookd.install.plugins import plugin_settings

__all__ = ["Check", "Install", "diagnose"]

_APPROVE = "approve them with /hooks in codex (codex exec: --dangerously-bypass-hook-trust)"


@dataclass(frozen=True, slots=True)
class Check:
    """One line of the diagnosis: what was checked, whether it holds, and the fix if not."""

    name: str
    ok: bool
    detail: str
    fix: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {"check": self.name, "ok": self.ok, "detail": self.detail, "fix": self.fix}


@dataclass(frozen=True, slots=True)
class Install:
    """One agent's hook file that names the module, and its checks."""

    agent: str
    scope: str
    file: str
    module: str
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    def as_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent, "scope": self.scope, "file": self.file, "module": self.module,
            "ok": self.ok, "checks": [c.as_json() for c in self.checks],
        }  # fmt: skip


@dataclass(frozen=True, slots=True)
class _Daemon:
    """What one probe of the module's daemon found, shared by its files' checks."""

    paths: DaemonPaths
    token: str
    found: Running | str | None


def diagnose(root: Path) -> list[Install]:
    """Every agent's hook file that calls a module's daemon in the project ``root``."""
    out = []
    for module in installed_modules():
        files = [f for f in hook_files(module) if f.scope == "user" or f.root == root]
        if not files:
            continue
        paths = daemon_paths(module, create=False)
        token = read_token(paths) or ""
        daemon = _Daemon(paths, token, probe(paths, token) if token else None)
        for file in files:
            shown = shown_path(module, root)
            out.append(
                Install(file.agent, file.scope, file.shown, shown, _checks(file, daemon, root))
            )
    return out


def _checks(file: HookFile, daemon: _Daemon, root: Path) -> list[Check]:
    paths = daemon.paths
    module = shown_path(paths.module, root)
    value: dict[str, Any] = {}
    entries: list[Entry] = []
    if file.plugin:
        checks = [_plugin(file, paths, module)]
        if not checks[0].ok:
            return checks
    else:
        try:
            value, entries = file_entries(file, file.keys(paths))
        except ValueError as exc:
            fix = f"fix it, then: {file.install(paths.module)}"
            return [Check("installed", False, str(exc), fix)]
        if not entries:
            detail = f"{file.shown} has no hookd entries for {module}"
            return [Check("installed", False, detail, file.install(paths.module))]
        events = sorted({e.agent_event for e in entries})
        named = ", ".join(events) if len(events) <= 6 else f"{len(events)} events"
        detail = f"{len(entries)} hookd entries in {file.shown} ({named})"
        checks = [Check("installed", True, detail)]
    if not paths.module.is_file():
        fix = f"put it back, or: hookd uninstall{_agent_words(file)} {module}"
        checks.append(Check("module", False, f"{module}: no such file; no daemon can start", fix))
        return checks
    checks += _daemon_checks(file, daemon, value, module)
    checks += _trust(file, entries, root)
    checks += _enabled(file, entries, root)
    return checks


def _plugin(file: HookFile, paths: DaemonPaths, module: str) -> Check:
    """hookd's plugin file is there, is the module's, and names its daemon as installed."""
    try:
        found = plugin_settings(file.path.read_bytes())
    except OSError:
        found = None
    if found is None or found.get("key") != paths.key:
        detail = f"{file.shown} is not hookd's plugin for {module}"
        return Check("installed", False, detail, file.install(paths.module))
    port = port_field(read_json(paths.record))
    named = (found.get("port"), found.get("readyFile"), found.get("tokenFile"))
    if named != (port, str(paths.ready), str(paths.token)):
        detail = f"{file.shown} names another daemon than the module's (port {found.get('port')})"
        return Check("installed", False, detail, file.install(paths.module))
    routes = found.get("routes")
    events = ", ".join(routes) if isinstance(routes, dict) else ""
    return Check("installed", True, f"hookd's plugin in {file.shown} ({events})")


def _agent_words(file: HookFile) -> str:
    words = "" if file.agent == "claude" else f" --agent {file.agent}"
    return words + ("" if file.scope == "local" else f" --scope {file.scope}")


def _daemon_checks(
    file: HookFile, daemon: _Daemon, value: dict[str, Any], module: str
) -> list[Check]:
    found = daemon.found
    if found is None:
        detail = "not running (a session's first hook starts it; until then none answers)"
        return [Check("daemon", False, detail, f"hookd up {module}")]
    if not isinstance(found, Running):  # `hookd up` starts it again with the current token
        detail = "a daemon of the module runs but refuses the token its hooks send"
        return [Check("daemon", False, detail, f"hookd up {module}")]
    checks = [Check("daemon", True, f"pid {found.pid} on {HOST}:{found.port}")]
    error = found.status.get("reload_error")
    if isinstance(error, str) and error:
        detail = f"the last save did not load; the version before it answers: {error}"
        checks.append(Check("module", False, detail, f"hookd check {module}"))
    checks.append(_token(file, daemon, value))
    left: Any = found.status.get("unrouted")
    for left_out in left if isinstance(left, list) else ():
        if isinstance(left_out, dict) and left_out.get("file") == str(file.path):
            names = ", ".join(map(str, left_out.get("events") or ()))
            detail = f"{names} in the module, not in {file.shown}: {file.agent} never calls them"
            checks.append(Check("events", False, detail, str(left_out.get("fix"))))
    return checks


def _token(file: HookFile, daemon: _Daemon, value: dict[str, Any]) -> Check:
    """The token the agent sends is the daemon's: Claude Code's http hooks carry it in the file
    (local and user scope); every shim reads the daemon's token file, which it takes."""
    entries = (
        entries_of(value, file.keys(daemon.paths), flat=False) if file.agent == "claude" else []
    )
    sent = {
        str(e.handler.get("headers", {}).get("Authorization", ""))
        for e in entries
        if e.handler.get("type") == "http" and isinstance(e.handler.get("headers"), dict)
    }
    if not sent:
        return Check("token", True, "the hooks read the daemon's token file, which it takes")
    if sent == {f"Bearer {daemon.token}"}:
        return Check("token", True, f"{file.shown} carries the daemon's token")
    detail = f"{file.shown} carries an older token than the daemon's, which refuses its hooks"
    return Check("token", False, detail, file.install(daemon.paths.module))


def _trust(file: HookFile, entries: list[Entry], root: Path) -> list[Check]:
    checks: list[Check] = []
    if file.agent == "codex":
        if file.scope == "local":
            checks += _finding("trust", agent_state.codex_project_trusted(root))
        untrusted, _ = agent_state.codex_untrusted(file.path, entries)
        if untrusted:
            detail = (
                f"{len(untrusted)} of hookd's {len(entries)} codex hooks are not approved "
                f"({', '.join(sorted(set(untrusted)))}): codex skips them without a word"
            )
            checks.append(Check("trust", False, detail, _APPROVE))
        elif all(c.ok for c in checks):
            checks.append(Check("trust", True, "codex trusts hookd's hooks as they are"))
    elif file.agent == "gemini" and file.scope == "local":
        found = agent_state.gemini_folder_trusted(root)
        checks += _finding("trust", found) or [Check("trust", True, f"gemini trusts {root}")]
    return checks


def _enabled(file: HookFile, entries: list[Entry], root: Path) -> list[Check]:
    checks = _finding("enabled", agent_state.switched_off(file.agent, root))
    if file.agent == "codex":
        _, off = agent_state.codex_untrusted(file.path, entries)
        if off:
            detail = f"{len(off)} of hookd's codex hooks are turned off ({', '.join(sorted(off))})"
            checks.append(Check("enabled", False, detail, "turn them on with /hooks in codex"))
    if file.agent == "gemini":
        commands = [str(e.handler.get("command")) for e in entries]
        checks += _finding("enabled", agent_state.gemini_disabled(root, commands))
    return checks or [Check("enabled", True, f"{file.agent}'s settings leave its hooks on")]


def _finding(name: str, found: agent_state.Finding | None) -> list[Check]:
    return [] if found is None else [Check(name, False, found.detail, found.fix)]
