"""Parsers of the daemon commands: install, uninstall, up, down, status, call, log."""

from __future__ import annotations

import argparse

from hookd.bounds import BYTES, DAYS, IDLE_SECONDS, LIMIT, PORT, RECORD_ID, SECONDS, option

TYPE_CHECKING = False  # without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["AGENT_CHOICES", "DAEMON_COMMANDS", "DAEMON_PARSERS", "LIGHT_COMMANDS", "port_number"]

#: Seconds without a request before the daemon exits; the next prompt starts it again.
DEFAULT_IDLE_EXIT_S = 8 * 3600.0
#: Seconds ``hookd whatif`` gives the candidate module to load (``--load-timeout``).
DEFAULT_LOAD_TIMEOUT_S = 10.0

DAEMON_COMMANDS = ("install", "uninstall", "up", "down", "status", "call", "log")
#: Commands on the hook path of every session or prompt: they import nothing heavy.
LIGHT_COMMANDS = ("up", "call")
#: What ``--agent`` takes (hookd.daemon.agent_config.OTHER_AGENTS, named here without importing
#: the dialects); ``all`` is Claude Code and each other agent whose CLI is on PATH.
AGENT_CHOICES = ("claude", "codex", "gemini", "copilot", "qwen", "all")


def _hooks(p: argparse.ArgumentParser, *, optional: bool = False) -> None:
    if optional:
        p.add_argument("hooks", metavar="HOOKS", nargs="?", help="hooks file (default: every one)")
    else:
        p.add_argument("hooks", metavar="HOOKS", help="hooks file (path/to/hooks.py)")


#: An argparse type: a TCP port a daemon can listen on (1-65535).
port_number = option(PORT)


def record_id(text: str) -> str | float:
    """An argparse type of ``--why``: ``latest`` (no ID given), or a record ID."""
    return text if text == "latest" else option(RECORD_ID)(text)


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
        ".github/hooks/hookd.json, .qwen/settings.json); project = .claude/settings.json "
        "(shared: `hookd call` commands that work in every checkout; Claude Code only); user "
        "= ~/.claude/settings.json (every project; ~/.codex/hooks.json, "
        "~/.gemini/settings.json, ~/.copilot/hooks/hookd.json, ~/.qwen/settings.json)",
    )


def _agent(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--agent",
        dest="agents",
        action="append",
        type=agent_name,
        metavar="AGENT",
        help=f"{what}: claude (default), codex, gemini, copilot, qwen, or all (claude and each "
        "other agent whose CLI is on PATH); may be given more than once",
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


def _log(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "hooks",
        metavar="HOOKS",
        nargs="?",
        help="hooks file (default: the one of the project you are in, found as install finds "
        "it, that has a decision log; else the one module with a decision log)",
    )
    p.add_argument(
        "--why",
        nargs="?",
        const="latest",
        type=record_id,
        metavar="ID",
        help="explain one answer: the latest denial (or record ID): the hook that decided, "
        "its reason, the input it saw (redacted), the module version and when",
    )
    p.add_argument("--denied", action="store_true", help="only denials (deny, block, stop)")
    p.add_argument(
        "--shadow",
        action="store_true",
        help="what shadow hooks would have decided, denials first",
    )
    p.add_argument("--session", metavar="ID", help="only this session_id")
    p.add_argument("--agent", metavar="A", help="only calls from this agent (claude, codex, ...)")
    p.add_argument("--tool", metavar="T", help="only calls of this tool (Bash, Write, ...)")
    p.add_argument(
        "--since", metavar="WHEN", help="only records since 1h, 30m, 2d, or 2026-11-26T10:00"
    )
    p.add_argument(
        "--limit",
        type=option(LIMIT),
        default=50,
        metavar="N",
        help="the last N records; 0 = all of them (default: 50)",
    )
    p.add_argument(
        "--follow",
        "-f",
        action="store_true",
        help="keep printing new records as they are written (Ctrl-C ends)",
    )
    p.add_argument("--json", action="store_true", help="one JSON object per record and line")


def _whatif(p: argparse.ArgumentParser) -> None:
    import textwrap

    p.formatter_class = argparse.RawDescriptionHelpFormatter  # keeps the epilog's lines
    p.description = textwrap.fill(p.description or "", 78)
    p.epilog = WHATIF_EPILOG
    p.add_argument("candidate", metavar="NEW_MODULE", help="the candidate hooks file or module")
    p.add_argument(
        "hooks",
        metavar="HOOKS",
        nargs="?",
        help="the installed hooks file whose decision log to replay (default: the one of "
        "the project you are in that has a decision log; else the one module with one)",
    )
    p.add_argument(
        "--since",
        default="1d",
        metavar="WHEN",
        help="calls since 1h, 30m, 2d, or 2026-11-26T10:00 (default: 1d, the last day)",
    )
    p.add_argument(
        "--limit",
        type=option(LIMIT),
        metavar="N",
        help="only the last N calls; 0 = every one (default: every one)",
    )
    p.add_argument(
        "--load-timeout",
        type=option(SECONDS),
        default=DEFAULT_LOAD_TIMEOUT_S,
        metavar="SECONDS",
        help="how long NEW_MODULE may take to load before the replay gives up; its "
        "process, and every process it started, is then killed (default: "
        f"{DEFAULT_LOAD_TIMEOUT_S:g})",
    )
    p.add_argument(
        "--json", action="store_true", help="one JSON object per changed call, then a summary"
    )


WHATIF_EPILOG = """\
exit status: 0 when no decision would change, 3 when one would, 1 on an error
(the candidate does not load, or not within --load-timeout; no decision log yet;
a damaged or locked store), 2 on a usage error. What the candidate prints is not
shown (its last 64 KiB kept in memory), and every process it started in its
process group is killed when the replay ends.

examples:
  hookd whatif candidate.py .claude/hooks.py             the last day's calls
  hookd whatif candidate.py .claude/hooks.py --since 2h --json
"""


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
        "and UserPromptSubmit unless --fail-open; the same daemon serves every agent.",
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
        None,
        _status,
    ),
    "log": (
        "why was this blocked: the decisions the daemon of HOOKS gave",
        "List the decision log of HOOKS (every daemon's answer: time, agent, event, tool, "
        "decision, the hook that decided, its reason), newest last. Secrets in inputs and "
        "reasons are masked. Without HOOKS: the module of the project you are in (as install "
        "finds it) that has a decision log, else the one module with a decision log.",
        _log,
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
        _whatif,
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
