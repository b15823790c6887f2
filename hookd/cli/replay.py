"""``hookd replay`` on the command line: its parser and its ``main``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from hookd.bounds import SECONDS, Bound, option

__all__ = ["add_replay_parser", "main", "replay_main"]

#: ``--speed``: how much faster than recorded (``inf``, no pauses, is allowed beside it).
SPEED = Bound(0, 1_000_000, above=True)


DESCRIPTION = """\
Start `hookd serve HOOKS`, play the CLI's side of each TRANSCRIPT into it and
check every answer against the recorded one (matched by request id, compared as
parsed JSON). A request the recording never answered must get no answer.
A transcript recorded from `hookd serve --http` (header mode "http") is
replayed against `hookd serve HOOKS --http`: its requests are POSTed on as many
keep-alive connections as were recorded, and each status and body compared.
Exit status: 0 when every transcript matches, 1 otherwise, 2 on a usage error.
"""

EPILOG = """\
examples:
  hookd replay session.jsonl --hooks hooks.py
  hookd replay recorded/*.jsonl                    (hooks named in each header)
  hookd replay slow.jsonl --hooks hooks.py --speed 10 --serve-arg=--timeout=5
"""


def _speed(text: str) -> float:
    """An argparse type: a factor above 0 and at most a million, or ``inf`` (no pauses)."""
    if text.strip().lower() in ("inf", "infinity"):
        return float("inf")
    return option(SPEED)(text)


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("transcripts", nargs="+", metavar="TRANSCRIPT", help="transcript file(s)")
    p.add_argument("--hooks", metavar="HOOKS", help="hooks file or module (default: the header's)")
    p.add_argument(
        "--speed",
        type=_speed,
        metavar="FACTOR",
        help="divide recorded pauses by FACTOR; inf skips them (default: the header's, else 1)",
    )
    p.add_argument(
        "--pace",
        choices=["causal", "recorded"],
        default="causal",
        help="causal: send each line once the answers before it arrived, pausing only "
        "before cancels; recorded: also keep every recorded gap (default: causal)",
    )
    p.add_argument(
        "--timeout",
        type=option(SECONDS),
        default=10.0,
        metavar="SECONDS",
        help="longest wait for an answer or for hookd to exit (default: 10)",
    )
    p.add_argument(
        "--serve-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="extra argument for `hookd serve`, repeatable (write --serve-arg=--timeout=5)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="print only failures")


def add_replay_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``replay`` subcommand to a ``hookd`` subparsers object."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "replay",
        help="replay a transcript against `hookd serve` and diff the answers",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_arguments(p)
    return p


def replay_main(args: argparse.Namespace) -> int:
    """Run ``hookd replay`` with parsed arguments; the exit status."""
    from hookd.redact import escape_controls
    from hookd.transcript.format import TranscriptError
    from hookd.transcript.replay import ReplayConfig, format_report, replay_file

    config = ReplayConfig(
        hooks=args.hooks,
        speed=args.speed,
        pace=args.pace,
        timeout_s=args.timeout,
        serve_args=tuple(args.serve_arg),
    )
    status = 0
    for path in args.transcripts:
        try:
            result = replay_file(path, config)
        except TranscriptError as exc:
            print(f"hookd replay: error: {exc}", file=sys.stderr)
            return 2
        if not (result.ok and args.quiet):  # a transcript holds an agent's text
            print(escape_controls(format_report(result), multiline=True))
        status = status or (0 if result.ok else 1)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """``hookd replay ARGS`` as a function (for tests and embedding)."""
    parser = argparse.ArgumentParser(
        prog="hookd replay",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_arguments(parser)
    return replay_main(parser.parse_args(argv))
