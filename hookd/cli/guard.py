"""``hookd guard [--json] [--strict] COMMAND``: what the destructive-command guard decides."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

__all__ = ["add_guard_parser", "guard_main"]

DESCRIPTION = """\
Show what hookd.guards.destructive_commands() would do with one shell command
line, without an agent: each command the line runs (after wrappers such as sudo,
env, xargs and find -exec are peeled, and bash -c, eval, ssh and heredoc payloads
are parsed again), the rule that matched it, and the decision. Exit status 0 when
the guard allows the line, 2 when it denies it (1 for a usage error).

Packs: filesystem (rm -r, find -delete, shred, unlink loops), permissions
(chmod/chown -R on /, ~ or a system folder), disk (dd of=/dev/..., mkfs, wipefs,
> /dev/sdX), git (reset --hard, clean -fdx, checkout -- ., restore, push --force
without a lease, branch -D, stash drop/clear, filter-branch, reflog expire), code
(rmtree and co., and the shell commands started by python -c, node -e, perl -e,
ruby -e). Recursive deletion is allowed in the system's temporary folders and in
each --allow folder.
"""

EPILOG = """\
examples:
  hookd guard 'sudo bash -c "rm -rf ~"'        denied (exit 2): rm-recursive
  hookd guard 'git push --force-with-lease'     allowed (exit 0)
  hookd guard --allow build 'rm -rf build'      allowed: build is an allowed folder
  hookd guard --json 'find / -delete'           the same, as one JSON object
"""


def add_guard_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``guard`` subcommand to a ``hookd`` subparsers object."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "guard",
        help="show what the destructive-command guard decides for a command line",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("command", metavar="COMMAND", help="the shell command line, one argument")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    strict = "also deny a line that does not parse, or whose program is not known"
    p.add_argument("--strict", action="store_true", help=strict)
    allow = "a folder where recursive deletion is fine (repeatable)"
    p.add_argument("--allow", action="append", default=[], metavar="PATH", help=allow)
    disable = "a rule pack or rule id to switch off (repeatable)"
    p.add_argument("--disable", action="append", default=[], metavar="RULE", help=disable)
    cwd = "the folder relative paths are read against (default: this one)"
    p.add_argument("--cwd", default=None, metavar="DIR", help=cwd)
    return p


def guard_main(args: argparse.Namespace) -> int:
    """Print the guard's view of the command; 0 allowed, 2 denied, 1 bad options."""
    import os

    from hookd.guards import Checker

    try:
        checker = Checker.make(allow=args.allow, strict=args.strict, disable=args.disable)
    except ValueError as exc:
        print(f"hookd guard: error: {exc}", file=sys.stderr)
        return 1
    report = checker.check(args.command, args.cwd or os.getcwd())
    if args.json:
        print(json.dumps(_as_json(report)))
    else:
        print(_as_text(report))
    return 2 if report.denied else 0


def _as_json(report: Any) -> dict[str, Any]:
    return {
        "decision": "deny" if report.denied else "allow",
        "reason": report.reason() or None,
        "commands": [
            {
                "argv": list(c.argv),
                "dynamic": sorted(c.dynamic),
                "via": list(c.via),
                "remote": c.remote,
                "repeated": c.repeated,
                "language": c.language,
                "code": c.code,
            }
            for c in report.parse.commands
        ],
        "findings": [
            {"rule": f.rule, "pack": f.pack, "command": f.command.shown(), "detail": f.detail}
            for f in report.findings
        ],
        "problems": list(report.parse.problems),
    }


def _as_text(report: Any) -> str:
    lines = []
    for command in report.parse.commands:
        words = " ".join(
            w if command.is_static(i) else f"<{w}: not known>" for i, w in enumerate(command.argv)
        )
        via = f"   (via {' > '.join(command.via)})" if command.via else ""
        lines.append(f"  {words}{via}")
        if command.code is not None:
            lines.append(f"    {command.language} code: {' '.join(command.code.split())[:100]}")
    lines = lines or ["  (no command)"]
    lines += [f"problem: {p}" for p in report.parse.problems]
    lines += [
        f"rule {f.rule} ({f.pack}): `{f.command.shown()}` {f.detail}" for f in report.findings
    ]
    verdict = f"deny: {report.reason()}" if report.denied else "allow"
    return "\n".join(["commands:", *lines, verdict])
