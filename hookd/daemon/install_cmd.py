"""``hookd install`` and ``hookd uninstall`` as commands: arguments in, a summary out."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from hookd.daemon.install import InstallError, install, settings_file, uninstall
from hookd.daemon.lifecycle import DaemonError, StartOptions, ensure_up, stop
from hookd.daemon.paths import PathError, daemon_paths, module_path, read_token

__all__ = ["install_main", "uninstall_main"]


def _fail(command: str, message: object) -> int:
    print(f"hookd {command}: error: {message}", file=sys.stderr)
    return 1


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def install_main(args: argparse.Namespace) -> int:
    """Write the settings entries, then start the daemon so open sessions work at once."""
    token_env = args.scope == "project"
    try:
        paths = daemon_paths(module_path(args.hooks))
        target = settings_file(args.scope, Path.cwd())
        done = install(paths, target, port=args.port, fail_open=args.fail_open, token_env=token_env)
    except (PathError, InstallError, OSError) as exc:
        return _fail("install", exc)
    events = ", ".join(done.events) or "no events"
    if done.note is not None:
        print(f"hookd: {done.note}")
    print(f"hookd: {_shown(done.path)}: {events} -> http://127.0.0.1:{done.port}/hook/EVENT")
    print("hookd: SessionStart and each prompt run `hookd up`, which starts the daemon if needed")
    if token_env:
        print(
            "hookd: project scope: the settings send $HOOKD_TOKEN; set it in the environment "
            "claude starts from (any random string)"
        )
    if args.no_start or (token_env and not os.environ.get("HOOKD_TOKEN")):
        return 0
    token = os.environ["HOOKD_TOKEN"] if token_env else read_token(paths, create=True)
    assert token is not None
    try:
        running, _ = ensure_up(paths, StartOptions(done.port, token, token_env, args.idle_exit))
    except DaemonError as exc:
        return _fail("install", f"settings written, but the daemon did not start: {exc}")
    print(f"hookd: daemon running: pid {running.pid} (`hookd status` shows its hooks)")
    return 0


def uninstall_main(args: argparse.Namespace) -> int:
    """Remove the module's entries and stop its daemon."""
    try:
        module = Path(args.hooks).expanduser()
        module = module_path(args.hooks) if module.is_file() else module.resolve()
        paths = daemon_paths(module)
        target = settings_file(args.scope, Path.cwd())
        removed = uninstall(paths, target)
        stop(paths)
    except (PathError, InstallError, DaemonError, OSError) as exc:
        return _fail("uninstall", exc)
    if removed:
        print(f"hookd: removed {removed} hookd entries from {_shown(target)}; daemon stopped")
    else:
        print(f"hookd: {_shown(target)} has no hookd entries for {module}")
    return 0
