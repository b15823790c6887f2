"""``hookd install`` and ``hookd uninstall``: the module's entries in a Claude Code settings file.

The file is read, its hookd entries for the module replaced, and written back
atomically. The version from before hookd's first entry is kept beside it
(``NAME.hookd.bak``, never overwritten, so it never holds a token) until the
last hookd entry goes. ``install.json`` in the module's state directory
remembers, per settings file, whether hookd created the file and its ``hooks``
object and the file's mode, so ``uninstall`` takes back exactly what was added.
"""

from __future__ import annotations

import copy
import json
import os
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookd.daemon import settings as entries_mod
from hookd.daemon.lifecycle import default_port
from hookd.daemon.paths import DaemonPaths, port_field, read_json, read_token, write_private
from hookd.daemon.ports import claimed_ports
from hookd.daemon.probe import probe
from hookd.daemon.settings import COMMAND_EVENTS, ROUTED_EVENTS, EventHooks, Target
from hookd.daemon.where import HOST, module_key
from hookd.errors import HookdError
from hookd.nofollow import LinkError, check_target, create_file, make_folders, read_regular
from hookd.nofollow import replace_file as _replace_file

__all__ = [
    "InstallError",
    "Scope",
    "backup_of",
    "check_writable",
    "hookd_command",
    "install",
    "pick_port",
    "read_settings",
    "remember",
    "replace_file",
    "settings_file",
    "uninstall",
    "write_settings",
]

SCOPES = ("local", "project", "user")
Scope = str
PORT_TRIES = 50


class InstallError(HookdError):
    """A settings file or module that cannot be installed; the message says why."""


@dataclass(frozen=True, slots=True)
class Installed:
    path: Path
    events: list[str]
    port: int
    secret: bool  # the file holds the daemon's token
    note: str | None = None  # the port moved off one another module owns


@dataclass(frozen=True, slots=True)
class Where:
    """Which settings file, for which project, in which scope."""

    scope: Scope
    root: Path  # the project's directory

    @property
    def path(self) -> Path:
        return settings_file(self.scope, self.root)

    @property
    def within(self) -> Path | None:
        """Where no folder on the way to the file may be a link: the project (user scope:
        none, ``~/.claude`` may be a link to the user's dotfiles)."""
        return None if self.scope == "user" else self.root

    @property
    def shared(self) -> bool:
        """Shared through git: nothing in it may depend on one user or one checkout."""
        return self.scope == "project"

    def key(self, paths: DaemonPaths) -> str:
        """The mark of the module's entries: in a shared file, the same in every checkout."""
        return module_key(self.relative(paths)) if self.shared else paths.key

    def relative(self, paths: DaemonPaths) -> str:
        try:
            return paths.module.relative_to(self.root).as_posix()
        except ValueError:
            raise InstallError(
                f"{paths.module}: project scope serves a hooks file inside the project "
                f"({self.root})"
            ) from None


def settings_file(scope: Scope, project: Path) -> Path:
    """Where ``scope``'s settings live (as Claude Code reads them)."""
    match scope:
        case "local":
            return project / ".claude" / "settings.local.json"
        case "project":
            return project / ".claude" / "settings.json"
        case _:
            return Path.home() / ".claude" / "settings.json"


def hookd_command() -> list[str]:
    """The absolute command that runs this hookd (the console script beside the interpreter)."""
    argv0 = Path(sys.argv[0])
    if argv0.name == "hookd" and argv0.is_file():
        return [str(argv0.absolute())]
    beside = Path(sys.executable).parent / "hookd"
    if beside.is_file():
        return [str(beside)]
    return [sys.executable, "-m", "hookd"]


def event_hooks(module: Path, *, route_all: bool) -> tuple[list[EventHooks], list[str]]:
    """Per event to route, what the settings need to know about the module's hooks for it.

    With ``route_all``, every routed and shim event is there, with or without hooks at install
    time (a later save may add some); else SessionStart (which starts the daemon) and the
    events the module handles. The module's other events too. Then the events the module has
    hooks for.
    """
    from hookd.core.loader import load_hooks
    from hookd.core.registration import BLOCKING_BY_DEFAULT
    from hookd.errors import HookdError

    try:
        registry = load_hooks(str(module))
    except HookdError as exc:
        raise InstallError(str(exc)) from None
    always = (*COMMAND_EVENTS, *ROUTED_EVENTS) if route_all else ("SessionStart",)
    by_event: dict[str, list[Any]] = {e: [] for e in always}
    for reg in registry.registrations():
        by_event.setdefault(reg.event, []).append(reg)
    asks = registry.can_use_tool is not None
    if asks:
        by_event.setdefault("PermissionRequest", [])
    routed = [
        EventHooks(
            event,
            tuple(r.timeout_s for r in regs) or (registry.default_timeout_s,),
            tuple(r.matcher for r in regs) or (None,),
            blocks=any(r.on_failure == "block" for r in regs)
            or (not regs and event in BLOCKING_BY_DEFAULT),
            sequential=any(r.sequential for r in regs),
            least_s=registry.default_timeout_s,
        )
        for event, regs in by_event.items()
    ]
    return routed, [
        e for e, regs in by_event.items() if regs or (asks and e == "PermissionRequest")
    ]


def backup_of(path: Path) -> Path:
    return path.with_name(path.name + ".hookd.bak")


def pick_port(paths: DaemonPaths, wanted: int | None) -> tuple[int, str | None]:
    """``wanted``, the port of an earlier install, or the first free one from the default;
    a port another module owns is skipped, and the note says so."""
    if wanted is not None:
        return wanted, None
    claimed = claimed_ports(paths)
    recorded = port_field(read_json(paths.record))
    if recorded is not None and recorded not in claimed:
        return recorded, None
    token = read_token(paths) or ""
    start = default_port(paths)
    for port in range(start, start + PORT_TRIES):
        if port not in claimed and (_free(port) or probe(paths, token) is not None):
            first = recorded if recorded is not None else start
            note = None
            if first in claimed:
                note = f"port {first} belongs to {claimed[first]}; {paths.module} gets port {port}"
            return port, note
    raise InstallError(f"no free port in {start}-{start + PORT_TRIES - 1}; give --port N")


def _free(port: int) -> bool:
    import socket

    with socket.socket() as sock:
        try:
            sock.bind((HOST, port))
        except OSError:
            return False
    return True


def read_settings(path: Path) -> dict[str, Any] | None:
    """The settings object, None if the file does not exist; a clear error if it is broken."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise InstallError(f"{path}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        value = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise InstallError(f"{path}: not valid JSON ({exc}); fix it or move it away") from None
    if not isinstance(value, dict):
        raise InstallError(f"{path}: the settings file must hold a JSON object")
    return value


def check_writable(path: Path, within: Path | None) -> None:
    """Refuse (one line, :class:`InstallError`) a settings file hookd would write through a
    link: the file, its ``.hookd.bak``, a folder between ``within`` and them, a folder others
    may write, and the git ``info/exclude`` that would list them. Checked before anything is
    written, so a refused install writes nothing anywhere."""
    from hookd.daemon.project import exclude_file

    try:
        for target in (path, backup_of(path)):
            check_target(target, within=within)
        exclude = exclude_file(path.parent, within)
        if exclude is not None:
            check_target(exclude, within=within)
    except LinkError as exc:
        raise InstallError(str(exc)) from None


def write_settings(
    path: Path,
    value: dict[str, Any],
    *,
    mode: int,
    ours: Callable[[dict[str, Any] | None], bool] | None = None,
    within: Path | None = None,
) -> None:
    """Write atomically; the first time hookd writes its entries, keep the file as it was.

    The backup is made only from a file without hookd entries (``ours`` tells, by default
    Claude Code's shape: so it holds no token), and never replaced: it is the user's own
    version, kept private (0600). Neither is ever written through a link
    (:mod:`hookd.nofollow`).
    """
    try:
        for target in (path, backup_of(path)):  # the exclude file was checked before
            check_target(target, within=within)
        make_folders(path.parent, within=within)
        has_entries = ours or _has_entries
        before = read_regular(path)
        if before is not None and not has_entries(read_settings(path)):
            create_file(backup_of(path), before, 0o600, within=within)  # kept if one is there
        replace_file(path, (json.dumps(value, indent=2) + "\n").encode(), mode, within=within)
    except LinkError as exc:
        raise InstallError(str(exc)) from None


def replace_file(path: Path, data: bytes, mode: int, *, within: Path | None = None) -> None:
    """Replace a settings file atomically, never through a link (:class:`InstallError`)."""
    try:
        _replace_file(path, data, mode, within=within)
    except LinkError as exc:
        raise InstallError(str(exc)) from None


def _has_entries(value: dict[str, Any] | None) -> bool:
    return value is not None and entries_mod.strip(copy.deepcopy(value), None) > 0


def _target(paths: DaemonPaths, where: Where, port: int, fail_open: bool) -> Target:
    if where.shared:
        module = f'"$CLAUDE_PROJECT_DIR"/{shlex.quote(where.relative(paths))}'
        return Target(where.key(paths), None, ["hookd"], module, None, fail_open)
    token = read_token(paths, create=True)
    module = shlex.quote(str(paths.module))
    return Target(paths.key, port, hookd_command(), module, token, fail_open)


def install(paths: DaemonPaths, where: Where, *, port: int | None, fail_open: bool) -> Installed:
    """Write the module's entries into ``where``'s settings file."""
    path = where.path
    check_writable(path, where.within)
    events, handled = event_hooks(paths.module, route_all=not where.shared)
    chosen, note = pick_port(paths, port)
    target = _target(paths, where, chosen, fail_open)
    current = read_settings(path)
    value = current if current is not None else {}
    mode = _mode(path, secret=target.token is not None)
    remember(paths, path, chosen, created=current is None, had_hooks="hooks" in value)
    try:
        entries_mod.strip(value, paths.key)  # entries of an earlier install in another shape
        entries_mod.merge(value, target.key, entries_mod.entries(target, events))
    except ValueError as exc:
        raise InstallError(f"{path}: {exc}") from None
    write_settings(path, value, mode=mode, within=where.within)
    return Installed(path, handled, chosen, target.token is not None, note)


def _mode(path: Path, *, secret: bool) -> int:
    """The file's mode, narrowed to 0600 when it will hold the token."""
    try:
        mode = path.stat().st_mode & 0o777
    except FileNotFoundError:
        mode = 0o644
    return mode & 0o600 if secret else mode


def remember(
    paths: DaemonPaths,
    path: Path,
    port: int,
    *,
    created: bool,
    had_hooks: bool,
    extra: dict[str, Any] | None = None,
) -> None:
    """Note in the install record what the first install into ``path`` found there."""
    record = read_json(paths.record) or {}
    files = record.get("settings")
    files = dict(files) if isinstance(files, dict) else {}
    mode = path.stat().st_mode & 0o777 if path.exists() else None
    found = {"created_file": created, "had_hooks": had_hooks, "mode": mode, **(extra or {})}
    files.setdefault(str(path), found)
    record = {"module": str(paths.module), "port": port, "settings": files}
    write_private(paths.record, json.dumps(record, indent=2).encode())


def uninstall(paths: DaemonPaths, where: Where) -> tuple[int, list[str]]:
    """Remove the module's entries from ``where``'s file: how many handlers went, and the
    other settings files the module is still installed in."""
    path = where.path
    record = read_json(paths.record) or {}
    files = record.get("settings") if isinstance(record.get("settings"), dict) else {}
    assert isinstance(files, dict)
    mine = files.pop(str(path), None)
    value = read_settings(path)
    keys = (where.key(paths), paths.key)
    removed = 0 if value is None else _take_back(path, value, keys, mine, where.within)
    if record:  # the next uninstall (another agent's, another scope's) reads what is left
        write_private(paths.record, json.dumps({**record, "settings": files}, indent=2).encode())
    return removed, sorted(files)


def _take_back(
    path: Path, value: dict[str, Any], keys: tuple[str, ...], mine: object, within: Path | None
) -> int:
    """Strip the entries marked with ``keys``; restore what install changed around them."""
    removed = sum(entries_mod.strip(value, key) for key in dict.fromkeys(keys))
    created = isinstance(mine, dict) and mine.get("created_file") is True
    had_hooks = not isinstance(mine, dict) or mine.get("had_hooks") is True
    if value.get("hooks") == {} and not had_hooks:
        del value["hooks"]
    if not removed:
        return 0
    left = _has_entries(value)
    if value == {} and created:
        os.unlink(path)
    else:
        mode = mine.get("mode") if isinstance(mine, dict) else None
        restored = mode if isinstance(mode, int) and not left else path.stat().st_mode & 0o777
        data = (json.dumps(value, indent=2) + "\n").encode()
        replace_file(path, data, restored, within=within)
    if not left:
        backup_of(path).unlink(missing_ok=True)
    return removed
