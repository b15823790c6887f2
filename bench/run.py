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
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench import plot, report
from bench.contenders import CONTENDERS, ROOT, Counts
from bench.phases import calibrate, measure, measure_rss, measure_sleepers, remeasure

QUICK = Counts(
    n=2_000,
    plot_n=1_000,
    one_core_n=1_000,
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
    series = {}
    for name, node in results["contenders"].items():
        if node.get("status") == "ok":
            runs = [run for key, run in node["runs"].items() if key.isdigit()]
            series[name] = [(run["window"], run["p50_us"]) for run in runs if run["p50_us"]]
    return series


def rss_phase(
    contenders: dict[str, Any], counts: Counts, cpus: set[int] | None, deadline: float
) -> None:
    """The long RSS runs, last; fastest first, each capped to its share of the time left."""

    def rate(spec_name: str) -> float:
        return float(contenders[spec_name]["runs"]["64"]["answers_per_s"])

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
    results: dict[str, Any] = {"meta": meta(args, counts, client_cpus, contender_cpus)}
    log("calibrating the client against `cat` ...")
    results["client_calibration"] = calibrate(counts, contender_cpus)
    results["contenders"] = {
        spec.name: measure(spec, counts, contender_cpus, log)
        for spec in CONTENDERS
        if spec.name in wanted
    }
    for spec in CONTENDERS:
        node = results["contenders"].get(spec.name, {})
        if node.get("status") == "ok" and not spec.spawns_per_call:
            remeasure(spec, counts, contender_cpus, log, node)
    if results["contenders"]["floor"]["status"] != "ok":
        log(f"the floor failed: {results['contenders']['floor']['reason']}")
        return 1
    if "hookd" in wanted:
        results["sleepers"] = measure_sleepers(counts, contender_cpus, log)
    rss_phase(results["contenders"], counts, contender_cpus, started + counts.budget_s)
    results["targets"] = report.evaluate(results)
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
