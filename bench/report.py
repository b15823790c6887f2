"""The printed tables, from the raw results of one run (targets in :mod:`bench.targets`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from bench.phases import ONE_CORE
from bench.targets import SUBJECT, Results, get, quartiles

__all__ = ["render"]

RATES: Final = (
    ("contender", 16),
    ("ans/s @1", 9),
    ("x floor @1 [min-max]", 20),
    ("ans/s @64", 9),
    ("x floor @64 [min-max]", 21),
    ("1 core @1", 9),
    ("x floor [min-max]", 19),
)
COSTS: Final = (
    ("contender", 16),
    ("CPU us/ans @1", 13),
    ("client @1", 9),
    ("CPU us/ans @64", 14),
    ("client @64", 10),
    ("p50/p99 us @1", 15),
    ("spawn->1st ms", 13),
    ("peak RSS MiB", 12),
    ("RSS 10k->1M MiB", 22),
)


def _num(value: Any, spec: str = ",.0f") -> str:
    return "-" if value is None else format(value, spec)


def _spread(results: Results, name: str, key: str) -> str:
    spread = get(results, name, "ratio", key)
    if spread is None:
        return "-"
    if len(spread["per_round"]) == 1:
        return f"{spread['median']:.2f}"
    return f"{spread['median']:.2f} [{spread['min']:.2f}-{spread['max']:.2f}]"


def _rate_row(results: Results, name: str) -> list[str]:
    return [
        name,
        _num(get(results, name, "median", "1")),
        _spread(results, name, "1"),
        _num(get(results, name, "median", "64")),
        _spread(results, name, "64"),
        _num(get(results, name, "median", ONE_CORE)),
        _spread(results, name, ONE_CORE),
    ]


def _cost_row(results: Results, name: str) -> list[str]:
    node = results["contenders"][name]
    spawn = node.get("spawn") or {}
    if spawn.get("status") != "ok":
        spawn_text = "-"
    elif spawn["to_init_ms_median"] is not None:
        spawn_text = _num(spawn["to_init_ms_median"])
    else:
        spawn_text = _num(spawn["to_first_hook_ms_median"]) + "*"
    p50, p99 = get(results, name, "latency_1", "p50_us"), get(results, name, "latency_1", "p99_us")
    return [
        name,
        _num(get(results, name, "cpu_us", "1", "own"), ".1f"),
        _num(get(results, name, "cpu_us", "1", "client"), ".1f"),
        _num(get(results, name, "cpu_us", "64", "own"), ".1f"),
        _num(get(results, name, "cpu_us", "64", "client"), ".1f"),
        f"{_num(p50)}/{_num(p99)}",
        spawn_text,
        f"{node['peak_rss_kib'] / 1024:.1f}",
        _rss_text(name, node.get("rss_growth")),
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


def _line(cells: list[str], columns: tuple[tuple[str, int], ...]) -> str:
    if len(cells) == 2:
        return f"{cells[0]:<{columns[0][1]}} {cells[1]}"
    return " ".join(
        f"{cell:<{width}}" if i == 0 else f"{cell:>{width}}"
        for i, (cell, (_, width)) in enumerate(zip(cells, columns, strict=True))
    )


def _table(results: Results, columns: Any, row: Callable[[Results, str], list[str]]) -> list[str]:
    lines = [_line([t for t, _ in columns], columns), _line(["-" * w for _, w in columns], columns)]
    for name, node in results["contenders"].items():
        if node.get("status") != "ok":
            cells = [name, "unavailable: " + _short_reason(node.get("reason", ""))]
        else:
            cells = row(results, name)
        lines.append(_line(cells, columns))
    return lines


def render(results: Results) -> str:
    """The two tables, the machine's speed, their footnotes, and the targets."""
    meta = results["meta"]
    lines = [
        f"hookd bench  {meta['timestamp']}  commit {meta['git_commit'] or '-'}  "
        f"python {meta['python']}  {meta['cpu_count']} cores  {meta['mode']}",
        "",
        *_machine(results),
        "",
        *_table(results, RATES, _rate_row),
        "",
        *_table(results, COSTS, _cost_row),
        "",
        *_notes(results),
        "",
        *_against_base(results),
        f"targets for {SUBJECT} (median of the rounds' ratios, [min-max] over the rounds):",
    ]
    for item in results["targets"]:
        value = "-" if item["measured"] is None else f"{item['measured']:.2f}{item['unit']}"
        lines.append(f"  {item['verdict']:<4}  {item['target']:<58} measured {value}{item['note']}")
    lines.append(f"\nrun time {results['elapsed_s']:.0f} s")
    return "\n".join(lines)


#: The contender ``HOOKD_BENCH_BASE`` adds: another commit's hookd, in the same rounds.
BASE: Final = "hookd-base"


def _against_base(results: Results) -> list[str]:
    """This checkout's hookd over the base commit's, round by round (pairs run back to back)."""
    new, old = get(results, SUBJECT, "rounds"), get(results, BASE, "rounds")
    if not new or not old:
        return []
    lines = ["this checkout against the base commit: new/old of each round's pair, median"
             " [IQR, min-max]"]  # fmt: skip
    for key, label in (("1", "@1"), ("64", "@64"), (ONE_CORE, "one core @1")):
        pairs = [(a[key], b[key]) for a, b in zip(new, old, strict=False) if key in a and key in b]
        if not pairs:
            continue
        rates = [a["answers_per_s"] / b["answers_per_s"] for a, b in pairs]
        cpus = [
            a["contender_cpu_us_per_answer"] / b["contender_cpu_us_per_answer"]
            for a, b in pairs
            if b["contender_cpu_us_per_answer"]
        ]
        lines.append(f"  answers/s {label:<14} {_quartile_text(rates)}")
        if cpus:
            lines.append(f"  own CPU/answer {label:<9} {_quartile_text(cpus)}")
    return [*lines, ""]


def _quartile_text(values: list[float]) -> str:
    if len(values) < 2:
        return f"{values[0]:.3f}"
    q1, median, q3 = quartiles(values)
    return f"{median:.3f} [{q1:.3f}-{q3:.3f}, {min(values):.3f}-{max(values):.3f}]"


def _machine(results: Results) -> list[str]:
    """The floor's absolute figures: how fast this machine was during the run."""
    rates = {
        key: [r[key]["answers_per_s"] for r in get(results, "floor", "rounds") or [] if key in r]
        for key in ("1", "64")
    }
    if not rates["1"] or not rates["64"]:
        return ["machine speed: the floor was not measured"]
    return [
        "machine speed (the floor, median [min-max] over the rounds):"
        f" {_num(get(results, 'floor', 'median', '1'))} ans/s @1"
        f" [{_num(min(rates['1']))}-{_num(max(rates['1']))}],"
        f" {_num(get(results, 'floor', 'median', '64'))} ans/s @64"
        f" [{_num(min(rates['64']))}-{_num(max(rates['64']))}]"
    ]


def _notes(results: Results) -> list[str]:
    meta, calib = results["meta"], results["client_calibration"]
    counts = meta["counts"]
    cpu1, cpu64 = (calib[w]["client_cpu_us_per_answer"] for w in ("1", "64"))
    return [
        f"rates: median of {counts['rounds']} interleaved rounds (floor, hookd, ..., floor,"
        f" hookd, ...), each of {counts['n']:,} requests @1, {counts['n64']:,} @64 and"
        f" {counts['one_core_n']:,} @1 on one core;",
        "  x floor: the median of the per-round ratios to the floor's run in the same round,"
        " [min-max] over the rounds.",
        "CPU us/ans: user+sys CPU per answer over every round (/proc/<pid>/stat for the"
        " contender, getrusage for the client).",
        f"command: spawns one python3 per call, so only {counts['per_call_n']} requests at 1"
        f" and 64 in flight, one pass, no one-core run; ratios against the floor's median.",
        "* sdk: spawn -> first hook_callback answered (the SDK sends initialize, it does not"
        " answer one); the others: spawn -> initialize answered (median of"
        f" {counts['spawns']} spawns).",
        f"RSS 10k->1M: VmRSS after {counts['rss_first']:,} and {counts['rss_total']:,} requests"
        " at 64 in flight, one fresh process; floor and hookd only; '@Nk' marks a run cut short"
        " to fit the time budget.",
        f"client alone against `cat`: {_num(calib['1']['answers_per_s'])} ans/s @1,"
        f" {_num(calib['64']['answers_per_s'])} ans/s @64; client CPU"
        f" {cpu1:.1f} / {cpu64:.1f} us per answer.",
        f"client pinned to CPUs {meta['client_cpus']}, contenders to {meta['contender_cpus']}.",
        "1 core @1: W=1 again with the client on the contender's core (no cross-core wake-up;"
        f" `cat` does {_num(calib[ONE_CORE]['answers_per_s'])} ans/s this way).",
    ]
