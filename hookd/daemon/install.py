"""``hookd install`` and ``hookd uninstall``: the module's entries in a Claude Code settings file.

The file is read, its hookd entries for the module replaced, and written back
atomically, the previous version kept beside it (``NAME.hookd.bak``).
``install.json`` in the module's state directory remembers, per settings file,
whether hookd created the file and its ``hooks`` object, so ``uninstall``
takes back exactly what was added.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookd.daemon import settings as entries_mod
from hookd.daemon.lifecycle import default_port
from hookd.daemon.paths import DaemonPaths, int_field, read_json, read_token, write_private
from hookd.daemon.ports import claimed_ports
from hookd.daemon.probe import probe
from hookd.daemon.settings import EventHooks, Target
from hookd.daemon.where import HOST
from hookd.errors import HookdError

__all__ = ["InstallError", "Scope", "hookd_command", "install", "settings_file", "uninstall"]

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
    note: str | None = None  # the port moved off one another module owns


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


def event_hooks(module: Path) -> list[EventHooks]:
    """Per event, what the settings need to know about the module's hooks."""
    from hookd.core.loader import load_hooks
    from hookd.errors import HookdError

    try:
        registry = load_hooks(str(module))
    except HookdError as exc:
        raise InstallError(str(exc)) from None
    by_event: dict[str, list[Any]] = {}
    for reg in registry.registrations():
        by_event.setdefault(reg.event, []).append(reg)
    if registry.can_use_tool is not None:
        by_event.setdefault("PermissionRequest", [])
    return [
        EventHooks(
            event,
            tuple(r.timeout_s for r in regs) or (registry.default_timeout_s,),
            tuple(r.matcher for r in regs) or (None,),
            blocks=any(r.on_failure == "block" for r in regs) or not regs,
            sequential=any(r.sequential for r in regs),
        )
        for event, regs in by_event.items()
    ]


def pick_port(paths: DaemonPaths, wanted: int | None) -> tuple[int, str | None]:
    """``wanted``, the port of an earlier install, or the first free one from the default;
    a port another module owns is skipped, and the note says so."""
    if wanted is not None:
        return wanted, None
    claimed = claimed_ports(paths)
    recorded = int_field(read_json(paths.record), "port")
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
    except OSError as exc:
        raise InstallError(f"{path}: {exc.strerror}") from None
    try:
        value = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise InstallError(f"{path}: not valid JSON ({exc}); fix it or move it away") from None
    if not isinstance(value, dict):
        raise InstallError(f"{path}: the settings file must hold a JSON object")
    return value


def write_settings(path: Path, value: dict[str, Any], *, secret: bool) -> None:
    """Write atomically, after copying the current file to ``NAME.hookd.bak``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = 0o600 if secret else 0o644
    if path.exists():
        mode = path.stat().st_mode & 0o777 & (0o600 if secret else 0o777)
        shutil.copy2(path, path.with_name(path.name + ".hookd.bak"))
    write_private(path, (json.dumps(value, indent=2) + "\n").encode(), mode)


def install(
    paths: DaemonPaths, path: Path, *, port: int | None, fail_open: bool, token_env: bool
) -> Installed:
    """Write the module's entries into the settings file at ``path``."""
    events = event_hooks(paths.module)
    token = None if token_env else read_token(paths, create=True)
    chosen, note = pick_port(paths, port)
    target = Target(paths.key, chosen, hookd_command(), str(paths.module), token, fail_open)
    current = read_settings(path)
    value = current if current is not None else {}
    _remember(paths, path, chosen, created=current is None, had_hooks="hooks" in value)
    try:
        entries_mod.merge(value, paths.key, entries_mod.entries(target, events))
    except ValueError as exc:
        raise InstallError(f"{path}: {exc}") from None
    write_settings(path, value, secret=token is not None)
    return Installed(path, [e.event for e in events], chosen, note)


def _remember(paths: DaemonPaths, path: Path, port: int, *, created: bool, had_hooks: bool) -> None:
    record = read_json(paths.record) or {}
    files = record.get("settings")
    files = dict(files) if isinstance(files, dict) else {}
    files.setdefault(str(path), {"created_file": created, "had_hooks": had_hooks})
    record = {"module": str(paths.module), "port": port, "settings": files}
    write_private(paths.record, json.dumps(record, indent=2).encode())


def uninstall(paths: DaemonPaths, path: Path) -> int:
    """Remove the module's entries from ``path``; how many handlers went."""
    value = read_settings(path)
    if value is None:
        return 0
    removed = entries_mod.strip(value, paths.key)
    record = read_json(paths.record) or {}
    files = record.get("settings") if isinstance(record.get("settings"), dict) else {}
    assert isinstance(files, dict)
    mine = files.pop(str(path), None)
    created = isinstance(mine, dict) and mine.get("created_file") is True
    had_hooks = not isinstance(mine, dict) or mine.get("had_hooks") is True
    if value.get("hooks") == {} and not had_hooks:
        del value["hooks"]
    if removed:
        if value == {} and created:
            shutil.copy2(path, path.with_name(path.name + ".hookd.bak"))
            os.unlink(path)
        else:
            write_settings(path, value, secret=False)
    if record:
        write_private(paths.record, json.dumps({**record, "settings": files}, indent=2).encode())
    return removed
