"""The hookd targets, measured from the raw results of one run."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from bench.phases import ONE_CORE

__all__ = ["SUBJECT", "TARGETS", "Results", "evaluate", "get", "quartiles", "ratio"]

Results = dict[str, Any]
SUBJECT: Final = "hookd"


def get(results: Results, name: str, *path: str) -> Any:
    """``results["contenders"][name][path...]``, or None when absent or unavailable."""
    node: Any = results["contenders"].get(name)
    if not node or node.get("status") != "ok":
        return None
    for key in path:
        if not isinstance(node, dict) or node.get(key) is None:
            return None
        node = node[key]
    return node


def quartiles(values: list[float]) -> tuple[float, float, float]:
    """(first quartile, median, third quartile) of ``values`` (at least two of them)."""
    q1, median, q3 = statistics.quantiles(sorted(values), n=4, method="inclusive")
    return q1, median, q3


def ratio(top: Any, bottom: Any) -> float | None:
    return top / bottom if top is not None and bottom else None


@dataclass(frozen=True)
class Target:
    text: str
    measure: Callable[[Results], float | None]
    passes: Callable[[float], bool]
    unit: str
    note: Callable[[Results], str] = lambda _r: ""


def _median_ratio(key: str) -> Callable[[Results], Any]:
    return lambda r: get(r, SUBJECT, "ratio", key, "median")


def _spread_note(key: str) -> Callable[[Results], str]:
    def note(results: Results) -> str:
        spread = get(results, SUBJECT, "ratio", key)
        if spread is None:
            return ""
        text = (
            f" [{spread['min']:.2f}-{spread['max']:.2f}, IQR {spread['q1']:.2f}-{spread['q3']:.2f}]"
        )
        if key == "1":
            one_core = get(results, SUBJECT, "ratio", ONE_CORE, "median")
            text += "" if one_core is None else f" (one core: {one_core:.2f}x)"
        return text

    return note


def _cpu_ratio(key: str) -> Callable[[Results], Any]:
    return lambda r: ratio(
        get(r, SUBJECT, "cpu_us", key, "own"), get(r, "floor", "cpu_us", key, "own")
    )


def _cpu_note(results: Results) -> str:
    own, floor = (
        get(results, SUBJECT, "cpu_us", "64", "own"),
        get(results, "floor", "cpu_us", "64", "own"),
    )
    at_one = _cpu_ratio("1")(results)
    if own is None or floor is None:
        return ""
    tail = "" if at_one is None else f"; @1: {at_one:.2f}x"
    return f" ({own:.1f} vs {floor:.1f} us per answer{tail})"


def _sleepers(results: Results) -> float | None:
    sleepers = results.get("sleepers") or {}
    return sleepers.get("wall_ms") if sleepers.get("status") == "ok" else None


def _growth(results: Results) -> float | None:
    growth = get(results, SUBJECT, "rss_growth", "growth")
    return None if growth is None else abs(growth) * 100


def _growth_note(results: Results) -> str:
    requests = get(results, SUBJECT, "rss_growth", "requests")
    capped = get(results, SUBJECT, "rss_growth", "capped")
    return f" (capped at {requests:,} requests to fit the time budget)" if capped else ""


TARGETS: Final = (
    Target(
        "answers/s @1 in flight >= 0.85x floor",
        _median_ratio("1"),
        lambda v: v >= 0.85,
        "x",
        _spread_note("1"),
    ),
    Target(
        "throughput @64 in flight >= 0.5x floor",
        _median_ratio("64"),
        lambda v: v >= 0.5,
        "x",
        _spread_note("64"),
    ),
    Target(
        "own CPU per answer @64 <= 2x the floor's",
        _cpu_ratio("64"),
        lambda v: v <= 2,
        "x",
        _cpu_note,
    ),
    Target(
        "spawn to initialize answered < 100 ms (median)",
        lambda r: get(r, SUBJECT, "spawn", "to_init_ms_median"),
        lambda v: v < 100,
        " ms",
    ),
    Target(
        "peak RSS <= 0.5x the SDK handler's",
        lambda r: ratio(get(r, SUBJECT, "peak_rss_kib"), get(r, "sdk", "peak_rss_kib")),
        lambda v: v <= 0.5,
        "x",
    ),
    Target(
        ">= 100x faster per call than spawn-per-call command hooks",
        lambda r: ratio(get(r, SUBJECT, "median", "1"), get(r, "command", "median", "1")),
        lambda v: v >= 100,
        "x",
    ),
    Target(
        "RSS flat (within 10%) from 10k to 1M requests",
        _growth,
        lambda v: v <= 10,
        " %",
        _growth_note,
    ),
    Target("1,000 concurrent 100 ms hooks done < 300 ms", _sleepers, lambda v: v < 300, " ms"),
)


def evaluate(results: Results) -> list[dict[str, Any]]:
    out = []
    for target in TARGETS:
        value = target.measure(results)
        verdict = "n/a" if value is None else ("PASS" if target.passes(value) else "FAIL")
        out.append(
            {
                "target": target.text,
                "measured": value,
                "unit": target.unit,
                "verdict": verdict,
                "note": target.note(results),
            }
        )
    return out
