"""``hookd install`` and ``hookd uninstall`` as commands: arguments in, a summary out."""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from hookd.daemon.install import Installed, InstallError, Where, install, uninstall
from hookd.daemon.lifecycle import DaemonError, StartOptions, ensure_up, stop
from hookd.daemon.paths import (
    DaemonPaths,
    PathError,
    daemon_paths,
    forget,
    module_path,
    read_json,
    read_token,
    write_private,
)
from hookd.daemon.project import git_note, project_root

__all__ = ["install_main", "uninstall_main"]


def _fail(command: str, message: object) -> int:
    print(f"hookd {command}: error: {message}", file=sys.stderr)
    return 1


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _where(args: argparse.Namespace, module: Path) -> Where:
    return Where(args.scope, project_root(module, Path.cwd()))


def install_main(args: argparse.Namespace) -> int:
    """Write the settings entries, then start the daemon so open sessions work at once."""
    try:
        module = module_path(args.hooks)
        before = read_json(daemon_paths(module, create=False).record) or {}
        paths, done = _install(module, args)
    except (PathError, InstallError, OSError) as exc:
        return _fail("install", exc)
    if done.note is not None:
        print(f"hookd: {done.note}")
    _report(done, args.scope)
    changed = _remember_shadow(paths, args.shadow, bool(before.get("shadow")))
    if args.no_start:
        return 0
    if changed:
        stop(paths)  # the daemon starts again with --shadow, or without it
    return _start(paths, done, args.idle_exit)


def _remember_shadow(paths: DaemonPaths, shadow: bool, before: bool) -> bool:
    """Keep ``--shadow`` in the install record (every start of the daemon reads it);
    True when it differs from the install ``before``."""
    import json

    record = read_json(paths.record) or {}
    record["shadow"] = shadow
    write_private(paths.record, json.dumps(record, indent=2).encode())
    return shadow != before


def _install(module: Path, args: argparse.Namespace) -> tuple[DaemonPaths, Installed]:
    """Install; a failed first install of ``module`` leaves no state directory behind."""
    fresh = not daemon_paths(module, create=False).state_dir.exists()
    paths = daemon_paths(module)
    try:
        where = _where(args, module)
        return paths, install(paths, where, port=args.port, fail_open=args.fail_open)
    except BaseException:
        if fresh:
            shutil.rmtree(paths.state_dir, ignore_errors=True)
        raise


def _report(done: Installed, scope: str) -> None:
    if scope == "project":
        events = ", ".join(["SessionStart", *(e for e in done.events if e != "SessionStart")])
        print(f"hookd: {_shown(done.path)}: {events} -> `hookd call EVENT` (every checkout its "
              "own daemon, port and per-user token; `hookd` must be on PATH)")  # fmt: skip
        print("hookd: each shim starts the daemon when it is down, then passes the event on; "
              "install again after adding an event or a tool to the module")  # fmt: skip
    else:
        events = ", ".join(done.events) or "no events yet"
        url = f"http://127.0.0.1:{done.port}/hook/EVENT"
        print(f"hookd: {_shown(done.path)}: every tool and event -> {url}; the daemon matches "
              f"them against the module's hooks ({events})")  # fmt: skip
        print("hookd: SessionStart and each prompt run `hookd call`, which starts the daemon if "
              "needed, then passes the event on")  # fmt: skip
    if done.secret:
        note = git_note([done.path, done.path.with_name(done.path.name + ".hookd.bak")])
        if note is not None:
            print(f"hookd: {note}")


def _start(paths: DaemonPaths, done: Installed, idle_exit_s: float) -> int:
    token = read_token(paths, create=True)
    assert token is not None
    try:
        running, _ = ensure_up(paths, StartOptions(done.port, token, False, idle_exit_s))
    except DaemonError as exc:
        return _fail("install", f"settings written, but the daemon did not start: {exc}")
    print(f"hookd: daemon running: pid {running.pid} (`hookd status` shows its hooks)")
    return 0


def uninstall_main(args: argparse.Namespace) -> int:
    """Remove the module's entries; stop its daemon unless another settings file still uses it."""
    try:
        module = Path(args.hooks).expanduser()
        module = module_path(args.hooks) if module.is_file() else module.resolve()
        paths = daemon_paths(module, create=False)
        where = _where(args, module)
        removed, others = uninstall(paths, where)
    except (PathError, InstallError, OSError) as exc:
        return _fail("uninstall", exc)
    shown = _shown(where.path)
    if not removed and not module.is_file() and not paths.state_dir.exists():
        return _fail("uninstall", f"{args.hooks}: no such file, and nothing installed for it")
    if others:
        print(f"hookd: removed {removed} hookd entries from {shown}; the daemon keeps "
              f"serving {', '.join(map(_shown, map(Path, others)))}")  # fmt: skip
        return 0
    try:
        stop(paths)
    except (DaemonError, OSError) as exc:
        return _fail("uninstall", f"entries removed from {shown}, but the daemon: {exc}")
    forget(paths)
    if removed:
        print(f"hookd: removed {removed} hookd entries from {shown}; daemon stopped")
    else:
        print(f"hookd: {shown} has no hookd entries for {module}")
    return 0
