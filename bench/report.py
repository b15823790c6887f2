"""The printed table and the hookd targets, from the raw results of one run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from bench.phases import ONE_CORE

__all__ = ["TARGETS", "evaluate", "render"]

Results = dict[str, Any]
SUBJECT: Final = "hookd"
COLUMNS: Final = (
    ("contender", 16),
    ("reqs", 7),
    ("ans/s @1", 9),
    ("x floor", 7),
    ("ans/s @64", 9),
    ("x floor", 7),
    ("1 core @1", 9),
    ("x floor", 7),
    ("p50/p99 us @1", 15),
    ("spawn->1st ms", 13),
    ("peak RSS MiB", 12),
    ("RSS 10k->1M MiB", 22),
)


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


def ratio(top: Any, bottom: Any) -> float | None:
    return top / bottom if top is not None and bottom else None


@dataclass(frozen=True)
class Target:
    text: str
    measure: Callable[[Results], float | None]
    passes: Callable[[float], bool]
    unit: str
    note: Callable[[Results], str] = lambda _r: ""


def _rate(name: str, window: int) -> Callable[[Results], Any]:
    return lambda r: get(r, name, "runs", str(window), "answers_per_s")


def _one_core(name: str) -> Callable[[Results], Any]:
    return lambda r: get(r, name, "runs", ONE_CORE, "answers_per_s")


def _one_core_note(results: Results) -> str:
    value = ratio(_one_core(SUBJECT)(results), _one_core("floor")(results))
    return "" if value is None else f" (one core: {value:.2f}x)"


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
        "throughput @64 in flight >= 0.25x floor",
        lambda r: ratio(_rate(SUBJECT, 64)(r), _rate("floor", 64)(r)),
        lambda v: v >= 0.25,
        "x",
    ),
    Target(
        "answers/s @1 in flight >= 0.85x floor",
        lambda r: ratio(_rate(SUBJECT, 1)(r), _rate("floor", 1)(r)),
        lambda v: v >= 0.85,
        "x",
        _one_core_note,
    ),
    Target(
        "peak RSS <= 0.5x the SDK handler's",
        lambda r: ratio(get(r, SUBJECT, "peak_rss_kib"), get(r, "sdk", "peak_rss_kib")),
        lambda v: v <= 0.5,
        "x",
    ),
    Target(
        ">= 100x faster per call than spawn-per-call command hooks",
        lambda r: ratio(_rate(SUBJECT, 1)(r), _rate("command", 1)(r)),
        lambda v: v >= 100,
        "x",
    ),
    Target(
        "spawn to initialize answered < 250 ms (median)",
        lambda r: get(r, SUBJECT, "spawn", "to_init_ms_median"),
        lambda v: v < 250,
        " ms",
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


def _num(value: Any, spec: str = ",.0f") -> str:
    return "-" if value is None else format(value, spec)


def _row(results: Results, name: str) -> list[str]:
    node = results["contenders"][name]
    if node.get("status") != "ok":
        return [name, "unavailable: " + _short_reason(node.get("reason", ""))]
    spawn = node["spawn"]
    first = spawn["to_init_ms_median"]
    spawn_text = _num(first) if first is not None else _num(spawn["to_first_hook_ms_median"]) + "*"
    rss_text = _rss_text(name, node.get("rss_growth"))
    p50, p99 = get(results, name, "runs", "1", "p50_us"), get(results, name, "runs", "1", "p99_us")
    return [
        name,
        _num(node["requests"]) + ("+" if name == "command" else ""),
        _num(_rate(name, 1)(results)),
        _num(ratio(_rate(name, 1)(results), _rate("floor", 1)(results)), ".2f"),
        _num(_rate(name, 64)(results)),
        _num(ratio(_rate(name, 64)(results), _rate("floor", 64)(results)), ".2f"),
        _num(_one_core(name)(results)),
        _num(ratio(_one_core(name)(results), _one_core("floor")(results)), ".2f"),
        f"{_num(p50)}/{_num(p99)}",
        spawn_text,
        f"{node['peak_rss_kib'] / 1024:.1f}",
        rss_text,
    ]


def _short_reason(reason: str) -> str:
    """One line: what happened, and the last line of the contender's stderr if any."""
    head, _, stderr = reason.partition("; stderr: ")
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    text = " ".join(head.split()) + (f" ({lines[-1]})" if lines else "")
    return text[:140]


def _rss_text(name: str, growth: dict[str, Any] | None) -> str:
    if growth is None:
        return "not run (time)" if name != "command" else "not run"
    if growth["status"] != "ok":
        return "failed"
    text = (
        f"{growth['at_first_kib'] / 1024:.1f}->{growth['at_last_kib'] / 1024:.1f}"
        f" ({growth['growth'] * 100:+.1f}%)"
    )
    return text + (f" @{growth['requests'] // 1000}k" if growth["capped"] else "")


def _line(cells: list[str]) -> str:
    if len(cells) == 2:
        return f"{cells[0]:<{COLUMNS[0][1]}} {cells[1]}"
    return " ".join(
        f"{cell:<{width}}" if i == 0 else f"{cell:>{width}}"
        for i, (cell, (_, width)) in enumerate(zip(cells, COLUMNS, strict=True))
    )


def render(results: Results) -> str:
    """The table, its footnotes, the client's own cost and the targets."""
    meta = results["meta"]
    lines = [
        f"hookd bench  {meta['timestamp']}  commit {meta['git_commit'] or '-'}  "
        f"python {meta['python']}  {meta['cpu_count']} cores  {meta['mode']}",
        "",
        _line([title for title, _ in COLUMNS]),
        _line(["-" * width for _, width in COLUMNS]),
    ]
    lines += [_line(_row(results, name)) for name in results["contenders"]]
    lines += ["", *_notes(results), "", f"targets for {SUBJECT} (ratios from this run):"]
    for item in results["targets"]:
        value = "-" if item["measured"] is None else f"{item['measured']:.2f}{item['unit']}"
        lines.append(f"  {item['verdict']:<4}  {item['target']:<58} measured {value}{item['note']}")
    lines.append(f"\nrun time {results['elapsed_s']:.0f} s")
    return "\n".join(lines)


def _notes(results: Results) -> list[str]:
    meta, calib = results["meta"], results["client_calibration"]
    cpu1, cpu64 = (calib[w]["client_cpu_us_per_answer"] for w in ("1", "64"))
    per_call = meta["counts"]["per_call_n"]
    return [
        "reqs: requests measured at 1 and at 64 in flight. Those rates, and 1 core @1, are the"
        " better of two rounds in fresh processes minutes apart (both rounds in the JSON).",
        f"+ command: spawns one python3 per call, so only {per_call} requests at 1 and 64 in"
        f" flight ({meta['counts']['per_call_plot_n']} at the others), no one-core run.",
        f"4 and 16 in flight (plot only): {meta['counts']['plot_n']:,} requests;"
        f" 1 core @1: {meta['counts']['one_core_n']:,}.",
        "* sdk: spawn -> first hook_callback answered (the SDK sends initialize, it does not"
        " answer one);",
        "  the others: spawn -> initialize answered (first hook_callback in the JSON).",
        f"RSS 10k->1M: VmRSS after {meta['counts']['rss_first']:,} and"
        f" {meta['counts']['rss_total']:,} requests at 64 in flight, one fresh process;"
        " run last, for the floor and hookd only; '@Nk' marks a run cut short to fit the"
        " time budget.",
        f"client alone against `cat`: {_num(calib['1']['answers_per_s'])} ans/s @1,"
        f" {_num(calib['64']['answers_per_s'])} ans/s @64; client CPU"
        f" {cpu1:.1f} / {cpu64:.1f} us per answer.",
        f"client pinned to CPUs {meta['client_cpus']}, contenders to {meta['contender_cpus']}.",
        "1 core @1: W=1 again with the client on the contender's core, so no round trip pays a"
        " cross-core wake-up",
        f"  (`cat` does {_num(calib[ONE_CORE]['answers_per_s'])} ans/s this way); it shows"
        " each contender's own per-request cost.",
    ]
