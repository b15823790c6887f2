"""The stdio bench's old-against-new lines: ratios taken within each round's pair."""

from __future__ import annotations

from typing import Any

from bench.phases import ONE_CORE
from bench.report import _against_base


def _round(rate: float, cpu: float) -> dict[str, Any]:
    run = {"answers_per_s": rate, "contender_cpu_us_per_answer": cpu}
    return {"1": run, "64": run, ONE_CORE: run}


def test_ratios_are_per_round_pairs_with_their_spread() -> None:
    new = [_round(90.0, 11.0), _round(180.0, 10.0), _round(45.0, 12.0), _round(99.0, 10.0)]
    old = [_round(100.0, 10.0), _round(200.0, 10.0), _round(50.0, 10.0), _round(90.0, 10.0)]
    results = {
        "contenders": {
            "hookd": {"status": "ok", "rounds": new},
            "hookd-base": {"status": "ok", "rounds": old},
        }
    }

    lines = _against_base(results)

    rates = next(line for line in lines if line.strip().startswith("answers/s @1 "))
    # per-round ratios 0.9, 0.9, 0.9, 1.1: the median of the pairs, not the ratio of medians
    assert rates.split()[2] == "0.900"
    assert "0.900-1.100]" in rates
    cpu = next(line for line in lines if line.strip().startswith("own CPU/answer @64"))
    assert cpu.split()[3] == "1.050"


def test_nothing_without_a_base() -> None:
    results = {"contenders": {"hookd": {"status": "ok", "rounds": [_round(90.0, 11.0)]}}}
    assert _against_base(results) == []
