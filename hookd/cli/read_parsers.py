"""Parsers of the daemon commands that only read: ``log``, ``whatif`` and ``doctor``."""

from __future__ import annotations

import argparse

from hookd.bounds import LIMIT, RECORD_ID, SECONDS, option

__all__ = ["DEFAULT_LOAD_TIMEOUT_S", "doctor_parser", "log_parser", "record_id", "whatif_parser"]

#: Seconds ``hookd whatif`` gives the candidate module to load (``--load-timeout``).
DEFAULT_LOAD_TIMEOUT_S = 10.0


def record_id(text: str) -> str | float:
    """An argparse type of ``--why``: ``latest`` (no ID given), or a record ID."""
    return text if text == "latest" else option(RECORD_ID)(text)


def log_parser(p: argparse.ArgumentParser) -> None:
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


def whatif_parser(p: argparse.ArgumentParser) -> None:
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


def doctor_parser(p: argparse.ArgumentParser) -> None:
    import textwrap

    p.formatter_class = argparse.RawDescriptionHelpFormatter  # keeps the epilog's lines
    p.description = textwrap.fill(p.description or "", 78)
    p.epilog = DOCTOR_EPILOG
    p.add_argument(
        "--json",
        action="store_true",
        help="one JSON object: the project, ok, and each install with its checks "
        "(check, ok, detail, fix)",
    )


DOCTOR_EPILOG = """\
checks, for each agent's hook file that calls a module's daemon in this project
(and in your home: those run in every project):
  installed  the file holds the module's entries
  module     the module is a file, and its last save loaded
  daemon     the daemon runs (a session's first hook starts it otherwise)
  token      the token the agent sends is the one the daemon takes
  events     every event of the module that the agent sends is in the file
  trust      codex: the project is trusted and hookd's hooks approved (/hooks);
             gemini: the folder is trusted
  enabled    the agent's settings do not turn its hooks off (disableAllHooks,
             [features] hooks = false, hooksConfig.enabled = false, ...)

exit status: 0 when every check holds, 1 when one fails or nothing is set up.
"""
