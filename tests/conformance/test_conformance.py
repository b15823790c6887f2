"""The conformance suite: every transcript in ``conformance/`` replays green against hookd.

The transcripts are replayed concurrently (each against its own server
process), then checked one test per transcript.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from hookd.transcript.format import load
from hookd.transcript.replay import ReplayResult, format_report, replay

CONFORMANCE = Path(__file__).resolve().parents[2] / "conformance"
TRANSCRIPTS = sorted([*CONFORMANCE.glob("transcripts/*.jsonl"), *CONFORMANCE.glob("cases/*.jsonl")])
PARALLEL = 4


def _name(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


async def _replay_all() -> dict[Path, ReplayResult]:
    limiter = trio.CapacityLimiter(PARALLEL)
    results: dict[Path, ReplayResult] = {}

    async def one(path: Path) -> None:
        transcript = load(path)
        async with limiter:  # an http transcript is replayed into hookd serve --http
            results[path] = await replay(transcript)

    async with trio.open_nursery() as nursery:
        for path in TRANSCRIPTS:
            nursery.start_soon(one, path)
    return results


@pytest.fixture(scope="module")
def results() -> dict[Path, ReplayResult]:
    return trio.run(_replay_all)


def test_the_suite_holds_the_real_recordings_and_the_cases() -> None:
    names = {_name(p) for p in TRANSCRIPTS}
    assert {
        "transcripts/v2.1.330_allow.jsonl",
        "transcripts/v2.1.330_deny.jsonl",
        "transcripts/v2.1.330_error-then-can_use_tool.jsonl",
        "transcripts/http_session.jsonl",
        "transcripts/http_prompt_blocked.jsonl",
    } <= names
    assert len(names) > 10


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=_name)
def test_transcript_names_its_hooks_and_requirements(path: Path) -> None:
    transcript = load(path)
    hooks = transcript.hooks_spec()
    assert hooks is not None and Path(hooks).is_file(), f"{path}: hooks {hooks!r}"
    assert transcript.header.requirements, f"{path}: no requirements named"
    assert transcript.header.description, f"{path}: no description"


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=_name)
def test_transcript_replays_green(path: Path, results: dict[Path, ReplayResult]) -> None:
    result = results[path]
    assert result.ok, format_report(result)
