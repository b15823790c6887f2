"""`make bench`: measure every contender, print the table, write JSON and SVG.

Progress goes to stderr; stdout gets the table only. Exit status 1 if the floor
itself cannot be measured (every ratio needs it), else 0: targets are reported,
not enforced.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench import plot, report, targets
from bench.contenders import CONTENDERS, ROOT, Counts
from bench.phases import calibrate, measure_rss, measure_sleepers, measure_spawns
from bench.rounds import aggregate, measure_once, measure_rounds

QUICK = Counts(
    rounds=3,
    n=1_000,
    n64=2_000,
    plot_n=1_000,
    one_core_n=500,
    warmup=200,
    spawns=1,
    rss_first=2_000,
    rss_total=20_000,
    per_call_n=30,
    per_call_plot_n=10,
)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small counts, for smoke checks")
    parser.add_argument(
        "--only",
        action="append",
        choices=[spec.name for spec in CONTENDERS],
        metavar="NAME",
        help="measure only this contender (repeatable; the floor always runs). "
        f"One of: {', '.join(spec.name for spec in CONTENDERS)}",
    )
    parser.add_argument(
        "--out", type=Path, default=ROOT / "bench" / "results", help="where to write results"
    )
    return parser.parse_args(argv)


STARTED = time.monotonic()


def log(text: str) -> None:
    print(f"{time.monotonic() - STARTED:6.1f}s {text}", file=sys.stderr, flush=True)


def pin() -> tuple[set[int], set[int] | None]:
    """Give the client the first CPU and the contenders the others (if there are others)."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        return set(cpus), None
    os.sched_setaffinity(0, {cpus[0]})
    return {cpus[0]}, set(cpus[1:])


def git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.strip() or None


def meta(args: argparse.Namespace, counts: Counts, client: set[int], others: Any) -> Any:
    return {
        "timestamp": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "git_commit": git_commit(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "client_cpus": sorted(client),
        "contender_cpus": sorted(others) if others else "unpinned",
        "mode": "quick" if args.quick else "full",
        "counts": {**vars(counts), "windows": list(counts.windows)},
    }


def latency_series(results: dict[str, Any]) -> dict[str, list[tuple[int, float]]]:
    """p50 latency per window: the median over the rounds at 1 and 64, the plot runs between."""
    series = {}
    for name, node in results["contenders"].items():
        if node.get("status") != "ok":
            continue
        points = {int(key): run["p50_us"] for key, run in node["plot"].items()}
        for key in ("1", "64"):
            values = [r[key]["p50_us"] for r in node["rounds"] if key in r and r[key]["p50_us"]]
            if values:
                points[int(key)] = statistics.median(values)
        series[name] = sorted((w, v) for w, v in points.items() if v)
    return series


def rss_phase(
    contenders: dict[str, Any], counts: Counts, cpus: set[int] | None, deadline: float
) -> None:
    """The long RSS runs, last; fastest first, each capped to its share of the time left."""

    def rate(spec_name: str) -> float:
        return float(contenders[spec_name]["median"]["64"])

    names = [
        spec.name
        for spec in CONTENDERS
        if spec.long_rss and contenders.get(spec.name, {}).get("status") == "ok"
    ]
    names.sort(key=rate, reverse=True)
    specs = {spec.name: spec for spec in CONTENDERS}
    for index, name in enumerate(names):
        share_s = (deadline - time.monotonic()) / (len(names) - index)
        fits = int(rate(name) * share_s * 0.8) // counts.rss_first * counts.rss_first
        requests = min(counts.rss_total, max(fits, 2 * counts.rss_first))
        contenders[name]["rss_growth"] = measure_rss(specs[name], counts, cpus, log, requests)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    counts = QUICK if args.quick else Counts()
    started = time.monotonic()
    client_cpus, contender_cpus = pin()
    wanted = {"floor", *(args.only or [spec.name for spec in CONTENDERS])}
    specs = [spec for spec in CONTENDERS if spec.name in wanted]
    results: dict[str, Any] = {"meta": meta(args, counts, client_cpus, contender_cpus)}
    log("calibrating the client against `cat` ...")
    results["client_calibration"] = calibrate(counts, contender_cpus)
    log(f"{counts.rounds} interleaved rounds of {', '.join(s.name for s in specs[:4])} ...")
    live = [spec for spec in specs if not spec.spawns_per_call]
    contenders = measure_rounds(live, counts, contender_cpus, log)
    for spec in specs:
        if spec.spawns_per_call:
            contenders[spec.name] = measure_once(spec, counts, contender_cpus, log)
    results["contenders"] = contenders
    if contenders["floor"]["status"] != "ok":
        log(f"the floor failed: {contenders['floor']['reason']}")
        return 1
    aggregate(contenders)
    log("spawn times ...")
    for name, spawn in measure_spawns(specs, counts, contender_cpus, log).items():
        contenders[name]["spawn"] = spawn
    if "hookd" in wanted:
        results["sleepers"] = measure_sleepers(counts, contender_cpus, log)
    rss_phase(contenders, counts, contender_cpus, started + counts.budget_s)
    results["targets"] = targets.evaluate(results)
    results["elapsed_s"] = time.monotonic() - started
    write(args.out, results)
    print(report.render(results))
    return 0


def write(out: Path, results: dict[str, Any]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "latest.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    subtitle = f"{results['meta']['timestamp']}, {results['meta']['mode']} run, log-log"
    svg = plot.latency_svg(latency_series(results), subtitle)
    (out / "latency.svg").write_text(svg, encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
