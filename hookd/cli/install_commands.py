"""``hookd install`` and ``hookd uninstall`` as commands: arguments in, a summary out."""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import Any

from hookd.cli.history import forget_module
from hookd.daemon.lifecycle import DaemonError, StartOptions, ensure_up, stop
from hookd.daemon.paths import (
    DaemonPaths,
    PathError,
    daemon_paths,
    drop_empty_folders,
    forget,
    module_path,
    read_json,
    read_token,
    write_private,
)
from hookd.daemon.project import exclude_file, git_ignore, project_root
from hookd.install.agents import AgentInstalled, agent_file, install_agent, uninstall_agent
from hookd.install.claude import (
    Installed,
    InstallError,
    Where,
    check_writable,
    install,
    remember_exclude,
    uninstall,
)
from hookd.install.executables import EXTENSION, script_paths
from hookd.install.settings_file import backup_of
from hookd.install.undo import Undo

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


def agents_of(args: argparse.Namespace, *, installed_only: bool) -> list[str]:
    """The agents named by ``--agent`` (claude when none), ``all`` expanded: Claude Code and
    each other agent whose CLI is on PATH (every other agent when ``installed_only`` is
    false: uninstall looks in each file)."""
    from hookd.install.agent_files import OTHER_AGENTS

    named = args.agents or ["claude"]
    out: list[str] = []
    for agent in named:
        if agent == "all":
            on_path = [a for a in OTHER_AGENTS if not installed_only or shutil.which(a)]
            out += ["claude", *on_path]
        else:
            out.append(agent)
    return list(dict.fromkeys(out))


def install_main(args: argparse.Namespace) -> int:
    """Write the settings entries, then start the daemon so open sessions work at once; all
    or nothing: a failure, the daemon's start included, puts every file back as it was."""
    agents = agents_of(args, installed_only=True)
    if "all" in (args.agents or []):
        print(f"hookd: --agent all: {', '.join(agents)}")
    undo = Undo()
    try:
        module = module_path(args.hooks)
        before = read_json(daemon_paths(module, create=False).record) or {}
        paths, done, notes = _install(module, args, agents, undo)
        changed = _remember(paths, args, before)
    except (PathError, InstallError, OSError) as exc:
        return _fail("install", f"{exc}{_undone(undo)}")
    port = 0
    for result in done:
        port = result.port
        if isinstance(result, Installed):
            if result.note is not None:
                print(f"hookd: {result.note}")
            _report(result, args.scope)
        else:
            _report_agent(result)
    for note in notes:
        print(f"hookd: {note}")
    if args.no_start:
        return 0
    if changed:
        stop(paths)  # the daemon starts again with --shadow or --otel-endpoint, or without
    return _start(paths, port, args.idle_exit, undo, fresh=not before)


def _undone(undo: Undo) -> str:
    """What a failed install says of the files it had written (put back as they were)."""
    put_back = undo.undo()
    if not put_back:
        return ""
    return f"; nothing installed ({', '.join(map(_shown, put_back))} put back as it was)"


def _remember(paths: DaemonPaths, args: argparse.Namespace, before: dict[str, Any]) -> bool:
    """Keep ``--shadow`` and ``--otel-endpoint`` in the install record (every start of the
    daemon reads it); True when either differs from the install ``before``."""
    import json

    record = read_json(paths.record) or {}
    record["shadow"] = bool(args.shadow)
    record["otel_endpoint"] = getattr(args, "otel_endpoint", None)
    write_private(paths.record, json.dumps(record, indent=2).encode())
    return record["shadow"] != bool(before.get("shadow")) or record["otel_endpoint"] != (
        before.get("otel_endpoint")
    )


Done = Installed | AgentInstalled


def _install(
    module: Path, args: argparse.Namespace, agents: list[str], undo: Undo
) -> tuple[DaemonPaths, list[Done], list[str]]:
    """Install for each agent; a failed first install of ``module`` leaves no state directory
    behind. Every agent's file is checked (git, links) before anything is written, and kept
    in ``undo`` as it was."""
    where = _where(args, module)
    key = daemon_paths(module, create=False).key
    for agent in agents:
        path = where.path if agent == "claude" else agent_file(agent, args.scope, where.root, key)
        if agent == "claude":
            check_writable(path, where.within)
        undo.keep(path, *script_paths(agent, path), shown=True)  # a folder: its scripts
        undo.keep(backup_of(path), exclude_file(path.parent, where.within))
    fresh = not daemon_paths(module, create=False).state_dir.exists()
    paths = daemon_paths(module)
    undo.keep(paths.record)
    try:
        done: list[Done] = []
        notes: list[str] = []
        for agent in agents:
            if agent == "claude":
                installed = install(paths, where, port=args.port, fail_open=args.fail_open)
                done.append(installed)
                notes += _ignore(paths, installed) if installed.secret else []
            else:
                done.append(install_agent(paths, agent, args.scope, where.root,
                                          port=args.port, fail_open=args.fail_open))  # fmt: skip
        return paths, done, notes
    except BaseException:
        if fresh:
            shutil.rmtree(paths.state_dir, ignore_errors=True)
        raise


def _ignore(paths: DaemonPaths, done: Installed) -> list[str]:
    """Have git ignore the settings file holding the token (and its backup); the lines added
    to git's exclude file are noted for uninstall."""
    note, exclude, lines = git_ignore([done.path, backup_of(done.path)])
    remember_exclude(paths, done.path, exclude, lines)
    return [note] if note is not None else []


def _report_agent(done: AgentInstalled) -> None:
    events = ", ".join(done.events)
    if done.kind == "executables":
        print(f"hookd: {_shown(done.path)}: {', '.join(e + EXTENSION for e in done.events)} -> "
              f"hookd-agent.sh, every tool, to the daemon on 127.0.0.1:{done.port} (the shim "
              "starts it when it is down)")  # fmt: skip
    elif done.kind == "plugin":
        print(f"hookd: {_shown(done.path)}: hookd's plugin; {events}, every tool, to the daemon "
              f"on 127.0.0.1:{done.port} (the plugin starts it when it is down)")  # fmt: skip
    else:
        print(f"hookd: {_shown(done.path)}: {events} -> hookd-agent.sh, every tool, to the daemon "
              f"on 127.0.0.1:{done.port} (the shim starts it when it is down)")  # fmt: skip
    if done.never:
        print(f"hookd: {done.agent} never sends: {', '.join(done.never)}")
    for note in done.notes:
        print(note if note.startswith("hookd: ") else f"hookd: {note}")


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


def _start(paths: DaemonPaths, port: int, idle_exit_s: float, undo: Undo, *, fresh: bool) -> int:
    """Start the daemon; one that cannot start takes the install back (fail-closed entries
    pointing at no daemon would block every tool call)."""
    token = read_token(paths, create=True)
    assert token is not None
    try:
        running, _ = ensure_up(paths, StartOptions(port, token, False, idle_exit_s))
    except DaemonError as exc:
        said = _undone(undo)
        if fresh:
            forget(paths)
        return _fail("install", f"the daemon did not start: {exc}{said}")
    print(f"hookd: daemon running: pid {running.pid} (`hookd status` shows its hooks)")
    return 0


def uninstall_main(args: argparse.Namespace) -> int:
    """Remove the module's entries; stop its daemon unless another settings file still uses it."""
    try:
        module = Path(args.hooks).expanduser()
        module = module_path(args.hooks) if module.is_file() else module.resolve()
        paths = daemon_paths(module, create=False)
        where = _where(args, module)
        taken = [_uninstall(paths, where, agent) for agent in agents_of(args, installed_only=False)]
    except (PathError, InstallError, OSError) as exc:
        return _fail("uninstall", exc)
    removed, others = sum(n for _, n, _ in taken), taken[-1][2]
    shown = ", ".join(_shown(path) for path, n, _ in taken if n) or _shown(taken[0][0])
    if not removed and not module.is_file() and not paths.state_dir.exists():
        return _fail("uninstall", f"{args.hooks}: no such file, and nothing installed for it")
    if others:
        print(f"hookd: removed {removed} hookd entries from {shown}; the daemon keeps "
              f"serving {', '.join(map(_shown, map(Path, others)))}")  # fmt: skip
        if args.purge:
            print("hookd: --purge: nothing removed while the daemon serves those; uninstall "
                  "them too, with --purge, to remove its decision log and state")  # fmt: skip
        return 0
    try:
        stop(paths)
    except (DaemonError, OSError) as exc:
        return _fail("uninstall", f"entries removed from {shown}, but the daemon: {exc}")
    said = forget_module(paths, args.hooks, purge=args.purge)
    drop_empty_folders(paths)
    if removed:
        print(f"hookd: removed {removed} hookd entries from {shown}; daemon stopped")
    else:
        print(f"hookd: {shown} has no hookd entries for {module}")
    if said is not None:
        print(said)
    return 0


def _uninstall(paths: DaemonPaths, where: Where, agent: str) -> tuple[Path, int, list[str]]:
    if agent == "claude":
        removed, others = uninstall(paths, where)
        return where.path, removed, others
    return uninstall_agent(paths, agent, where.scope, where.root)
