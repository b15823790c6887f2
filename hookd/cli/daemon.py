"""Parsers of the daemon commands: install, uninstall, up, down, status, call (log, whatif and
doctor, which only read: :mod:`hookd.cli.read_parsers`)."""

from __future__ import annotations

import argparse

from hookd.bounds import BYTES, DAYS, IDLE_SECONDS, PORT, option
from hookd.cli.read_parsers import doctor_parser, log_parser, whatif_parser

TYPE_CHECKING = False  # without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["AGENT_CHOICES", "DAEMON_COMMANDS", "DAEMON_PARSERS", "LIGHT_COMMANDS", "port_number"]

#: Seconds without a request before the daemon exits; the next prompt starts it again.
DEFAULT_IDLE_EXIT_S = 8 * 3600.0

DAEMON_COMMANDS = ("install", "uninstall", "up", "down", "status", "doctor", "call", "log")
#: Commands on the hook path of every session or prompt: they import nothing heavy.
LIGHT_COMMANDS = ("up", "call")
#: What ``--agent`` takes (hookd.install.agent_files.OTHER_AGENTS, named here without importing
#: the dialects); ``all`` is Claude Code and each other agent whose CLI is on PATH.
AGENT_CHOICES = (
    "claude", "codex", "gemini", "copilot", "qwen", "opencode", "kilo", "pi", "droid", "cline",
    "all",
)  # fmt: skip


def _hooks(p: argparse.ArgumentParser, *, optional: bool = False) -> None:
    if optional:
        p.add_argument("hooks", metavar="HOOKS", nargs="?", help="hooks file (default: every one)")
    else:
        p.add_argument("hooks", metavar="HOOKS", help="hooks file (path/to/hooks.py)")


#: An argparse type: a TCP port a daemon can listen on (1-65535).
port_number = option(PORT)


def _start_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--port", type=port_number, metavar="N", help="port on 127.0.0.1 (default: installed)"
    )
    p.add_argument(
        "--token-env",
        action="store_true",
        help="take the token from $HOOKD_TOKEN (project-scope settings)",
    )
    p.add_argument(
        "--idle-exit",
        type=option(IDLE_SECONDS),
        default=DEFAULT_IDLE_EXIT_S,
        metavar="SECONDS",
        help="exit after this long without a request; 0 = never, at most a year (default: 8 hours)",
    )
    p.add_argument(
        "--no-reload",
        dest="reload",
        action="store_false",
        help="do not reload the hooks file when it or a module it imports from its folder changes",
    )
    decision_log_options(p)
    otel_option(p)


def decision_log_options(p: argparse.ArgumentParser) -> None:
    """The daemon's decision log: off, or its bounds."""
    p.add_argument(
        "--no-decision-log",
        dest="decision_log",
        action="store_false",
        help="keep no decision log (`hookd log` then has nothing new to show)",
    )
    p.add_argument(
        "--decision-log-max-bytes",
        type=option(BYTES),
        metavar="N",
        help="the decision log's size bound; the oldest records go first "
        "(default: $HOOKD_DECISION_LOG_MAX_BYTES, else 50 MiB)",
    )
    p.add_argument(
        "--decision-log-max-days",
        type=option(DAYS),
        metavar="DAYS",
        help="records older than this are dropped (default: $HOOKD_DECISION_LOG_MAX_DAYS, else 30)",
    )


def otel_option(p: Any) -> None:
    """``--otel-endpoint URL``: OpenTelemetry export to an OTLP/HTTP collector."""
    p.add_argument(
        "--otel-endpoint",
        metavar="URL",
        help="export a span per answered call and call, denial, failure and latency metrics "
        "to this OTLP/HTTP collector (e.g. http://127.0.0.1:4318; /v1/traces and /v1/metrics "
        "are added); default: $OTEL_EXPORTER_OTLP_ENDPOINT (or the _TRACES_/_METRICS_ "
        "ones), else no export. Needs the otel extra: pip install 'hookd[otel]'",
    )


def _shadow(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--shadow",
        action="store_true",
        help="run every hook of HOOKS in shadow: on real calls, logged (`hookd log --shadow`) "
        "and counted, never part of the answer",
    )


def agent_name(text: str) -> str:
    """An argparse type: an agent ``--agent`` knows."""
    if text not in AGENT_CHOICES:
        raise argparse.ArgumentTypeError(
            f"unknown agent {text!r}: expected one of {', '.join(AGENT_CHOICES)}"
        )
    return text


def _scope(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--scope",
        choices=["local", "project", "user"],
        default="local",
        help="local = the project's .claude/settings.local.json (default, personal, ignored by "
        "git; other agents: .codex/hooks.json, .gemini/settings.json, "
        ".github/hooks/hookd.json, .qwen/settings.json, .factory/hooks.json, scripts in "
        ".clinerules/hooks/); project = .claude/settings.json "
        "(shared: `hookd call` commands that work in every checkout; Claude Code only); user "
        "= ~/.claude/settings.json (every project; ~/.codex/hooks.json, "
        "~/.gemini/settings.json, ~/.copilot/hooks/hookd.json, ~/.qwen/settings.json, "
        "~/.factory/hooks.json, ~/.cline/hooks/; "
        "opencode, kilo and pi: hookd's plugin in .opencode/plugins/, .kilo/plugins/, "
        ".pi/extensions/, or ~/.config/opencode/plugins/, ~/.config/kilo/plugins/, "
        "~/.pi/agent/extensions/)",
    )


def _agent(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--agent",
        dest="agents",
        action="append",
        type=agent_name,
        metavar="AGENT",
        help=f"{what}: claude (default), codex, gemini, copilot, qwen, opencode, kilo, pi, "
        "droid, cline, or all (claude and each other agent whose CLI is on PATH); may be given "
        "more than once",
    )


def _install(p: argparse.ArgumentParser) -> None:
    _hooks(p)
    _scope(p)
    _agent(p, "the agent CLI whose hook file to write")
    p.add_argument(
        "--port", type=port_number, metavar="N", help="daemon port (default: from the module)"
    )
    p.add_argument(
        "--fail-open",
        action="store_true",
        help='leave out "onFailure": "block" and give the prompt\'s shim --fail-open (other '
        "agents: every shim fails open): when the daemon is down, tools and prompts go ahead "
        "unguarded",
    )
    p.add_argument("--no-start", action="store_true", help="only write the settings")
    p.add_argument(
        "--idle-exit",
        type=option(IDLE_SECONDS),
        default=DEFAULT_IDLE_EXIT_S,
        help=argparse.SUPPRESS,
    )
    _shadow(p)
    otel_option(p)


def _uninstall(p: argparse.ArgumentParser) -> None:
    _hooks(p)
    _scope(p)
    _agent(p, "the agent CLI whose hook file to clean (all: every agent)")
    p.add_argument(
        "--purge",
        action="store_true",
        help="also remove the module's decision log (the history `hookd log` and `hookd "
        "whatif` read, kept otherwise, so that a reinstall keeps it)",
    )


def _up(p: argparse.ArgumentParser) -> None:
    _hooks(p)
    _start_options(p)
    _shadow(p)
    p.add_argument("--quiet", action="store_true", help="print nothing on success")


def _down(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "hooks",
        metavar="HOOKS",
        nargs="?",
        help="hooks file (default: the daemons of the project you are in: its modules, and "
        "those installed into its hook files)",
    )
    p.add_argument("--all", action="store_true", help="stop every daemon, of every project")


def _status(p: argparse.ArgumentParser) -> None:
    _hooks(p, optional=True)
    p.add_argument("--json", action="store_true", help="print the raw status objects")
    _agent(p, "show only this agent's hook files and calls")


def _call(p: argparse.ArgumentParser) -> None:
    p.add_argument("event", metavar="EVENT", help="hook event name (SessionStart, Setup, ...)")
    p.add_argument("--hooks", required=True, metavar="HOOKS", help="hooks file")
    p.add_argument(
        "--fail-open",
        action="store_true",
        help="when the daemon cannot answer, exit 1 (a non-blocking error) on every event",
    )
    p.add_argument(
        "--deadline",
        type=_seconds,
        metavar="SECONDS",
        help="the most the daemon's whole answer may take, from connecting to its last byte; "
        "an answer not complete by then is a failure (default: 600; install writes the "
        "event's budget)",
    )
    _start_options(p)


def _seconds(text: str) -> float:
    """An argparse type: a positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value < 1e9:
        raise argparse.ArgumentTypeError(f"seconds are more than 0, not {text}")
    return value


#: name -> (summary, description, builder), in the order ``hookd --help`` lists them.
DAEMON_PARSERS: dict[str, tuple[str, str | None, Callable[[argparse.ArgumentParser], None]]] = {
    "install": (
        "point Claude Code's settings at a warm hookd daemon serving HOOKS",
        "Write Claude Code settings entries (local and user scope: http hooks to a local "
        "daemon for every tool and every event it can serve, so hooks added by a later save of "
        "HOOKS are called too, and `hookd call` shims for SessionStart, Setup and each prompt, "
        "which start the daemon when it is not running; project scope: `hookd call` shims "
        "only, for SessionStart and the events HOOKS has at install), then start the daemon. "
        "The settings go to the project holding the module (its .claude/ or git root). "
        "Re-running replaces hookd's own entries. With --agent codex, gemini, copilot or "
        "qwen: that agent's own hook file (local or user scope), one command entry per event "
        "of HOOKS the agent sends, for every tool, running the bash shim hookd-agent.sh, which "
        "starts the daemon when it is down and fails closed on PreToolUse, PermissionRequest "
        "and UserPromptSubmit unless --fail-open; the same daemon serves every agent. With "
        "--agent opencode, kilo or pi: hookd's TypeScript plugin in the agent's plugin folder "
        "(hookd-KEY.ts), which forwards the same events and proves and starts the daemon as "
        "the shim does. With --agent droid: entries in .factory/hooks.json (its root is the "
        "event map). With --agent cline: one bash script per event in .clinerules/hooks/ "
        "(EVENT.zsh) running the shim, which prints a cancel when it cannot answer.",
        _install,
    ),
    "uninstall": (
        "remove hookd's entries for HOOKS from the settings and stop its daemon",
        "Remove exactly the entries `hookd install` wrote for HOOKS (--agent: in that agent's "
        "file); unless another scope or agent still uses it, stop its daemon and remove its "
        "token, log and install record. Its decision log (every answer it gave: `hookd log`, "
        "`hookd whatif`) is kept for a later install, and said so; --purge removes it too.",
        _uninstall,
    ),
    "up": (
        "start the daemon for HOOKS unless it already runs",
        "Start `hookd serve HOOKS --http 127.0.0.1:PORT` in the background unless "
        "it already answers, and wait until it does.",
        _up,
    ),
    "down": (
        "stop the daemon of HOOKS (or this project's; --all: every daemon)",
        "Stop the daemon of HOOKS with SIGTERM. Without HOOKS, the daemons of the project "
        "you are in (the nearest folder above holding .claude/ or .git, as install finds it): "
        "those serving a module inside it or installed into its hook files; --all stops every "
        "daemon. A stopped daemon starts again at the next session or prompt.",
        _down,
    ),
    "status": (
        "show running daemons: pid, port, uptime, reloads, per-hook figures",
        "For each running daemon (HOOKS': that one): its module, pid, port, uptime, last "
        "reload and its error, per-hook calls, errors, timeouts and latencies, each agent's "
        "calls, the answers per decision, and each hook file of its install that leaves out "
        "an event of the module (added after the install: run the `hookd install` it names "
        "again). Exit 3 when HOOKS has no daemon.",
        _status,
    ),
    "doctor": (
        "will each agent of this project call hookd? what to run if not",
        "For the project you are in (found as install finds it), list each agent set up to "
        "call hookd (its hook file, scope and module) and check that it will: the entries are "
        "there, the daemon runs, the token is current, every event is routed, the agent "
        "trusts the hooks (Codex, Gemini CLI) and its own settings do not turn hooks off. "
        "Each failing line says what to run.",
        doctor_parser,
    ),
    "log": (
        "why was this blocked: the decisions the daemon of HOOKS gave",
        "List the decision log of HOOKS (every daemon's answer: time, agent, event, tool, "
        "decision, the hook that decided, its reason), newest last. Secrets in inputs and "
        "reasons are masked. Without HOOKS: the module of the project you are in (as install "
        "finds it) that has a decision log, else the one module with a decision log.",
        log_parser,
    ),
    "whatif": (
        "replay HOOKS' logged calls through a candidate module; show what would change",
        "Answer the calls in the decision log of HOOKS (the last day's, or --since) again "
        "with NEW_MODULE, loaded in a process of its own (the running daemon is neither asked "
        "nor touched), and print each call whose decision would change (was allow, now deny; "
        "...) with both reasons, redacted, then a count. Each call is answered once, in the "
        "order it came, through its own agent's dialect; a hook's side effects happen as they "
        "would on a real call, and a hook that is not deterministic may answer otherwise than "
        "it would later.",
        whatif_parser,
    ),
    "call": (
        "post stdin to the daemon as EVENT's input (a command hook shim)",
        "Read a hook input on stdin, post it to the daemon of HOOKS (starting it "
        "if needed) and answer as a Claude Code command hook: the output JSON with exit 0; "
        "exit 2 and the reason on stderr when a guarded event (PreToolUse, PermissionRequest, "
        "UserPromptSubmit) cannot be answered, unless --fail-open. With $HOOKD_RECORD_ID set "
        "(by `hookd record`), the post asks the daemon to record this session.",
        _call,
    ),
}
