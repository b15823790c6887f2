"""``hookd install`` and ``hookd uninstall``: the module's entries in a Claude Code settings file.

The file is read, its hookd entries for the module replaced, and written back
atomically. The version from before hookd's first entry is kept beside it
(``NAME.hookd.bak``, never overwritten, so it never holds a token) until the
last hookd entry goes. ``install.json`` in the module's state directory
remembers, per settings file, whether hookd created the file and its ``hooks``
object and the file's mode, so ``uninstall`` takes back exactly what was added.
"""

from __future__ import annotations

import json
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookd.daemon import settings as entries_mod
from hookd.daemon.entry_text import CLAUDE, InstallError, Shape, parse, readable
from hookd.daemon.lifecycle import default_port
from hookd.daemon.paths import DaemonPaths, port_field, read_json, read_token, write_private
from hookd.daemon.ports import claimed_ports
from hookd.daemon.probe import probe
from hookd.daemon.project import forget_exclude
from hookd.daemon.settings import COMMAND_EVENTS, ROUTED_EVENTS, EventHooks, Target
from hookd.daemon.where import HOST, module_key
from hookd.install.settings_file import (
    Found,
    backup_of,
    check_file,
    drop_made_dirs,
    missing_dirs,
    take_back,
    write_entries,
)
from hookd.nofollow import LinkError, check_target

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
    "remember_exclude",
    "settings_file",
    "uninstall",
]

SCOPES = ("local", "project", "user")
Scope = str
PORT_TRIES = 50


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


def read_settings(path: Path, *, comments: bool = False) -> dict[str, Any] | None:
    """The settings object, None if the file does not exist; a clear error if it is broken."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InstallError(f"{path}: {exc.strerror or exc}") from None
    return readable(parse(data, path, Shape(comments=comments)))


def check_writable(path: Path, within: Path | None) -> None:
    """Refuse (one line, :class:`InstallError`) a settings file hookd may not write: a link it
    may not follow (:mod:`hookd.userfile`), a read-only file, a ``.hookd.bak`` that is a link,
    a folder between ``within`` and them that is a link, a folder others may write, and the
    git ``info/exclude`` that would list them. Checked before anything is written, so a
    refused install writes nothing anywhere."""
    from hookd.daemon.project import exclude_file

    check_file(path, within)
    try:
        exclude = exclude_file(path.parent, within)
        if exclude is not None:
            check_target(exclude, within=within)
    except LinkError as exc:
        raise InstallError(str(exc)) from None


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
    added = entries_mod.entries(target, events)
    keys = (paths.key, target.key)  # an earlier install's entries in another shape too
    first = _recorded(paths, path)
    made = [str(d) for d in missing_dirs(path.parent)]
    found = write_entries(path, CLAUDE, keys, added, secret=target.token is not None,
                          within=where.within, first=first)  # fmt: skip
    remember(paths, path, chosen, found, within=where.within, extra={"made_dirs": made})
    return Installed(path, handled, chosen, target.token is not None, note)


def _recorded(paths: DaemonPaths, path: Path) -> dict[str, Any] | None:
    """What the install record says of ``path``."""
    files = (read_json(paths.record) or {}).get("settings")
    mine = files.get(str(path)) if isinstance(files, dict) else None
    return mine if isinstance(mine, dict) else None


def remember(
    paths: DaemonPaths,
    path: Path,
    port: int,
    found: Found,
    *,
    within: Path | None,
    extra: dict[str, Any] | None = None,
) -> None:
    """Note in the install record what the first install into ``path`` found there (kept by
    later installs), and what uninstall should leave of the file written now."""
    record = read_json(paths.record) or {}
    files = record.get("settings")
    files = dict(files) if isinstance(files, dict) else {}
    first = {"created_file": found.created, "had_hooks": found.had_hooks, "mode": found.mode}
    mine = files.get(str(path))
    mine = dict(mine) if isinstance(mine, dict) else {**first, **(extra or {})}
    mine["restore"] = found.restore
    mine["within"] = str(within) if within is not None else None
    files[str(path)] = mine
    record = {**record, "module": str(paths.module), "port": port, "settings": files}
    write_private(paths.record, json.dumps(record, indent=2).encode())


def remember_exclude(
    paths: DaemonPaths, path: Path, exclude: Path | None, lines: list[str]
) -> None:
    """Note the lines install added to git's exclude file for ``path`` (uninstall takes them
    back out)."""
    if exclude is None or not lines:
        return
    record = read_json(paths.record) or {}
    files = record.get("settings")
    mine = files.get(str(path)) if isinstance(files, dict) else None
    if not isinstance(files, dict) or not isinstance(mine, dict):
        return
    noted = mine.get("exclude") if isinstance(mine.get("exclude"), dict) else {}
    assert isinstance(noted, dict)
    before = [x for x in noted.get("lines") or () if isinstance(x, str)]
    mine["exclude"] = {"file": str(exclude), "lines": before + lines}
    write_private(paths.record, json.dumps(record, indent=2).encode())


def uninstall(paths: DaemonPaths, where: Where) -> tuple[int, list[str]]:
    """Remove the module's entries from ``where``'s file: how many handlers went, and the
    other settings files the module is still installed in."""
    path = where.path
    record = read_json(paths.record) or {}
    files = record.get("settings") if isinstance(record.get("settings"), dict) else {}
    assert isinstance(files, dict)
    mine = files.pop(str(path), None)
    mine = mine if isinstance(mine, dict) else {}
    keys = (where.key(paths), paths.key)
    removed, left = take_back(path, CLAUDE, keys, mine, within=where.within)
    if not left:
        forget_exclude(mine)
        drop_made_dirs(mine)
    if record:  # the next uninstall (another agent's, another scope's) reads what is left
        write_private(paths.record, json.dumps({**record, "settings": files}, indent=2).encode())
    return removed, sorted(files)
