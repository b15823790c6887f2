"""``hookd replay``: play the CLI's side of a transcript into a real ``hookd serve``.

Every answer hookd gives is matched to the recorded one by request id and
compared as parsed JSON; a request the recording never answered must get no
answer. See ``conformance/README.md`` for the format and the rules.
"""

from __future__ import annotations

import secrets
import subprocess
import sys
from pathlib import Path
from typing import Final

import trio

from hookd.transcript.answers import Answers
from hookd.transcript.format import Transcript, TranscriptError, load
from hookd.transcript.plan import build_plan
from hookd.transcript.player import Player, probe_key
from hookd.transcript.report import format_report
from hookd.transcript.session import ReplayConfig, ReplayResult
from hookd.wire import LineFramer

__all__ = [
    "ReplayConfig",
    "ReplayResult",
    "format_report",
    "replay",
    "replay_file",
]

PROBE_PREFIX: Final = "hookd-replay-"
STDERR_TAIL_BYTES: Final = 64 * 1024
MAX_ANSWER_BYTES: Final = 1 << 30


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
