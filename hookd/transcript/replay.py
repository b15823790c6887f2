"""``hookd replay``: play the CLI's side of a transcript into a real ``hookd serve``.

Every answer hookd gives is matched to the recorded one by request id and
compared as parsed JSON; a request the recording never answered must get no
answer. See ``conformance/README.md`` for the format and the rules.
"""

from __future__ import annotations

import argparse
import secrets
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

import trio

from hookd.transcript.answers import Answers
from hookd.transcript.format import Transcript, TranscriptError, load
from hookd.transcript.plan import Plan, build_plan
from hookd.transcript.player import Player, probe_key
from hookd.transcript.report import format_report
from hookd.wire import LineFramer

__all__ = [
    "ReplayConfig",
    "ReplayResult",
    "add_replay_parser",
    "format_report",
    "replay",
    "replay_file",
    "replay_main",
]

Pace = Literal["causal", "recorded"]
PROBE_PREFIX: Final = "hookd-replay-"
STDERR_TAIL_BYTES: Final = 64 * 1024
MAX_ANSWER_BYTES: Final = 1 << 30


@dataclass(frozen=True, slots=True)
class ReplayConfig:
    """How to replay. ``hooks``/``speed`` override the header; times in seconds."""

    hooks: str | None = None
    speed: float | None = None
    pace: Pace = "causal"
    timeout_s: float = 10.0
    serve_args: tuple[str, ...] = ()
    command: tuple[str, ...] | None = None  # run this instead of `hookd serve HOOKS ...`


@dataclass(slots=True)
class ReplayResult:
    """What happened: the plan, the answers matched, and anything that went wrong."""

    transcript: Transcript
    command: list[str]
    plan: Plan
    answers: Answers
    mapping: dict[str, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    returncode: int | None = None
    stderr: bytearray = field(default_factory=bytearray)
    probe_ids: tuple[str, str] = ("", "")
    sent_at: dict[int, float] = field(default_factory=dict)  # transcript line -> trio time

    @property
    def ok(self) -> bool:
        a = self.answers
        return not (a.mismatches or a.unexpected or a.garbage or a.missing() or self.errors)


def _nonce() -> str:
    return secrets.token_hex(4)


def server_command(transcript: Transcript, config: ReplayConfig) -> list[str]:
    """``python -m hookd serve HOOKS [serve args]`` for this transcript."""
    if config.command is not None:
        return list(config.command)
    hooks = config.hooks or transcript.hooks_spec()
    if hooks is None:
        raise TranscriptError("no hooks module: pass --hooks or name one in the header")
    args = [*transcript.header.serve_args, *config.serve_args]
    return [sys.executable, "-m", "hookd", "serve", hooks, *args]


async def replay(transcript: Transcript, config: ReplayConfig | None = None) -> ReplayResult:
    """Replay ``transcript`` against a fresh server process and compare every answer."""
    config = config or ReplayConfig()
    if not transcript.entries:
        where = transcript.path or "<transcript>"
        raise TranscriptError(
            f'{where}: no recorded exchange (no {{"dir": ..., "msg": ...}} lines): '
            "not a transcript, or an empty one"
        )
    plan = build_plan(transcript)
    probe_ids = (f"{PROBE_PREFIX}initialize-{_nonce()}", f"{PROBE_PREFIX}fence-{_nonce()}")
    answers = Answers(plan.expected, probes={probe_key(i) for i in probe_ids})
    result = ReplayResult(transcript, server_command(transcript, config), plan, answers)
    result.probe_ids = probe_ids
    proc = await trio.lowlevel.open_process(
        result.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_read_answers, proc.stdout, answers)
            nursery.start_soon(_read_stderr, proc.stderr, result.stderr)
            await Player(result, config, proc.stdin).play()
            await _finish(proc, result, config.timeout_s)
            nursery.cancel_scope.deadline = trio.current_time() + config.timeout_s
    finally:
        with trio.CancelScope(shield=True):
            await _reap(proc)
    return result


async def _finish(proc: trio.Process, result: ReplayResult, timeout_s: float) -> None:
    """Close hookd's input, then wait for it to exit (killing it after ``timeout_s``)."""
    assert proc.stdin is not None
    await proc.stdin.aclose()
    with trio.move_on_after(timeout_s):
        result.returncode = await proc.wait()
        if result.returncode != 0:
            result.errors.append(f"hookd exited with code {result.returncode}")
        return
    result.errors.append(f"hookd did not exit within {timeout_s:g}s of its input closing")
    proc.kill()


async def _reap(proc: trio.Process) -> None:
    if proc.returncode is None:
        proc.kill()
    await proc.wait()


async def _read_answers(stdout: trio.abc.ReceiveStream, answers: Answers) -> None:
    framer = LineFramer(MAX_ANSWER_BYTES)
    async for chunk in stdout:
        for line in framer.feed(bytes(chunk)):
            answers.deliver_line(line if isinstance(line, bytes) else line.head)
    tail = framer.close()
    if tail is not None:
        answers.deliver_line(tail if isinstance(tail, bytes) else tail.head)
    answers.close()


async def _read_stderr(stderr: trio.abc.ReceiveStream, tail: bytearray) -> None:
    async for chunk in stderr:
        tail += chunk
        del tail[:-STDERR_TAIL_BYTES]


def replay_file(path: str | Path, config: ReplayConfig | None = None) -> ReplayResult:
    """Load and replay one transcript file (runs its own trio loop)."""
    return trio.run(replay, load(path), config)


# ----------------------------------------------------------------------------- CLI

DESCRIPTION = """\
Start `hookd serve HOOKS`, play the CLI's side of each TRANSCRIPT into it and
check every answer against the recorded one (matched by request id, compared as
parsed JSON). A request the recording never answered must get no answer.
Exit status: 0 when every transcript matches, 1 otherwise, 2 on a usage error.
"""

EPILOG = """\
examples:
  hookd replay session.jsonl --hooks hooks.py
  hookd replay conformance/cases/*.jsonl           (hooks named in each header)
  hookd replay slow.jsonl --hooks hooks.py --speed 10 --serve-arg=--timeout=5
"""


def _speed(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError("speed must be a positive number (or inf)")
    return value


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
        type=float,
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
        if not (result.ok and args.quiet):
            print(format_report(result))
        status = status or (0 if result.ok else 1)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m hookd.transcript.replay``."""
    parser = argparse.ArgumentParser(
        prog="hookd replay",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_arguments(parser)
    return replay_main(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
