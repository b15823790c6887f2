"""Parsers of the daemon commands: install, uninstall, up, down, status, call."""

from __future__ import annotations

import argparse

TYPE_CHECKING = False  # without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["DAEMON_COMMANDS", "DAEMON_PARSERS", "LIGHT_COMMANDS"]

#: Seconds without a request before the daemon exits; the next prompt starts it again.
DEFAULT_IDLE_EXIT_S = 8 * 3600.0

DAEMON_COMMANDS = ("install", "uninstall", "up", "down", "status", "call")
#: Commands on the hook path of every session or prompt: they import nothing heavy.
LIGHT_COMMANDS = ("up", "call")


def _hooks(p: argparse.ArgumentParser, *, optional: bool = False) -> None:
    if optional:
        p.add_argument("hooks", metavar="HOOKS", nargs="?", help="hooks file (default: every one)")
    else:
        p.add_argument("hooks", metavar="HOOKS", help="hooks file (path/to/hooks.py)")


def _start_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--port", type=int, metavar="N", help="port on 127.0.0.1 (default: installed)")
    p.add_argument(
        "--token-env",
        action="store_true",
        help="take the token from $HOOKD_TOKEN (project-scope settings)",
    )
    p.add_argument(
        "--idle-exit",
        type=float,
        default=DEFAULT_IDLE_EXIT_S,
        metavar="SECONDS",
        help="exit after this long without a request; 0 = never (default: 8 hours)",
    )
    p.add_argument(
        "--no-reload",
        dest="reload",
        action="store_false",
        help="do not reload the hooks file when it or a module it imports from its folder changes",
    )


def _scope(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--scope",
        choices=["local", "project", "user"],
        default="local",
        help="local = .claude/settings.local.json (default, personal, untracked); "
        "project = .claude/settings.json (shared; token from $HOOKD_TOKEN); "
        "user = ~/.claude/settings.json (every project)",
    )


def _install(p: argparse.ArgumentParser) -> None:
    _hooks(p)
    _scope(p)
    p.add_argument("--port", type=int, metavar="N", help="daemon port (default: from the module)")
    p.add_argument(
        "--fail-open",
        action="store_true",
        help='leave out "onFailure": "block": when the daemon is down, tools run unguarded',
    )
    p.add_argument("--no-start", action="store_true", help="only write the settings")
    p.add_argument("--idle-exit", type=float, default=DEFAULT_IDLE_EXIT_S, help=argparse.SUPPRESS)


def _uninstall(p: argparse.ArgumentParser) -> None:
    _hooks(p)
    _scope(p)


def _up(p: argparse.ArgumentParser) -> None:
    _hooks(p)
    _start_options(p)
    p.add_argument("--quiet", action="store_true", help="print nothing on success")


def _down(p: argparse.ArgumentParser) -> None:
    _hooks(p, optional=True)


def _status(p: argparse.ArgumentParser) -> None:
    _hooks(p, optional=True)
    p.add_argument("--json", action="store_true", help="print the raw status objects")


def _call(p: argparse.ArgumentParser) -> None:
    p.add_argument("event", metavar="EVENT", help="hook event name (SessionStart, Setup, ...)")
    p.add_argument("--hooks", required=True, metavar="HOOKS", help="hooks file")
    _start_options(p)


#: name -> (summary, description, builder), in the order ``hookd --help`` lists them.
DAEMON_PARSERS: dict[str, tuple[str, str | None, Callable[[argparse.ArgumentParser], None]]] = {
    "install": (
        "point Claude Code's settings at a warm hookd daemon serving HOOKS",
        "Write Claude Code settings entries (http hooks to a local daemon, "
        "`hookd up` at SessionStart and on each prompt, `hookd call` shims for SessionStart "
        "and Setup hooks), then start the daemon. Re-running replaces hookd's own entries.",
        _install,
    ),
    "uninstall": (
        "remove hookd's entries for HOOKS from the settings and stop its daemon",
        "Remove exactly the entries `hookd install` wrote for HOOKS.",
        _uninstall,
    ),
    "up": (
        "start the daemon for HOOKS unless it already runs",
        "Start `hookd serve HOOKS --http 127.0.0.1:PORT` in the background unless "
        "it already answers, and wait until it does.",
        _up,
    ),
    "down": ("stop the daemon of HOOKS (or every daemon)", None, _down),
    "status": (
        "show running daemons: pid, port, uptime, reloads, per-hook figures",
        None,
        _status,
    ),
    "call": (
        "post stdin to the daemon as EVENT's input (a command hook shim)",
        "Read a hook input on stdin, post it to the daemon of HOOKS (starting it "
        "if needed) and answer as a Claude Code command hook: the output JSON with exit 0; "
        "exit 2 and the reason on stderr when a guarded event cannot be answered.",
        _call,
    ),
}
