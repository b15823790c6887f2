"""``hookd replay``: play the CLI's side of a transcript into a real ``hookd serve``.

One engine for every transcript: a stdio one is played into ``hookd serve`` on
pipes, an ``http`` one into ``hookd serve --http``; only the transport
(:mod:`hookd.transcript.transport`) differs. Every answer hookd gives is matched
to the recorded one and compared as parsed JSON; a request the recording never
answered must get no answer. See ``conformance/README.md`` for the format and
the rules.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import trio

from hookd.transcript.answers import Answers
from hookd.transcript.format import Transcript, TranscriptError, load
from hookd.transcript.plan import build_plan
from hookd.transcript.player import Player
from hookd.transcript.report import format_report
from hookd.transcript.session import ReplayConfig, ReplayResult
from hookd.transcript.transport import Transport
from hookd.transcript.transport_http import HttpTransport
from hookd.transcript.transport_stdio import StdioTransport

__all__ = [
    "ReplayConfig",
    "ReplayResult",
    "format_report",
    "replay",
    "replay_file",
]


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
    result = ReplayResult(transcript, [], plan, Answers(plan.expected))
    kind = HttpTransport if plan.mode == "http" else StdioTransport
    with tempfile.TemporaryDirectory(prefix="hookd-replay-") as folder:
        transport: Transport = kind(result, config, Path(folder))
        result.command = transport.command
        try:
            async with trio.open_nursery() as nursery:
                if await transport.start(nursery):
                    await Player(result, config, transport).play()
                await transport.stop()
                nursery.cancel_scope.deadline = trio.current_time() + config.timeout_s
        finally:
            with trio.CancelScope(shield=True):
                await transport.reap()
    return result


def replay_file(path: str | Path, config: ReplayConfig | None = None) -> ReplayResult:
    """Load and replay one transcript file (runs its own trio loop)."""
    return trio.run(replay, load(path), config)
