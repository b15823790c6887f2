"""How each contender is measured: the phases of a run.

A contender that cannot start or answer is reported as unavailable with the
reason, and the run goes on.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from bench.client import Contender, ContenderError, Handshake, RunResult
from bench.contenders import ROOT, SLEEPER, Counts, Session, Spec
from bench.workload import build_block

__all__ = [
    "ONE_CORE",
    "calibrate",
    "client_on",
    "measure_rss",
    "measure_sleepers",
    "measure_spawns",
    "summary",
]

Log = Callable[[str], None]
ONE_CORE = "1_one_core"  # W=1 with the client on the contender's core


def summary(run: RunResult) -> dict[str, Any]:
    return {
        "n": run.n,
        "window": run.window,
        "wall_s": run.wall_s,
        "answers_per_s": run.answers_per_s,
        "p50_us": run.percentile_us(0.50),
        "p99_us": run.percentile_us(0.99),
        "client_cpu_us_per_answer": run.client_cpu_s / run.n * 1e6,
        "contender_cpu_us_per_answer": run.contender_cpu_s / run.n * 1e6,
        "answers_checked": run.checked,
    }


def measure_spawns(
    specs: list[Spec], counts: Counts, cpus: set[int] | None, log: Log
) -> dict[str, dict[str, Any]]:
    """Spawn -> initialize answered and spawn -> first hook answered, interleaved too."""
    handshakes: dict[str, list[Handshake]] = {spec.name: [] for spec in specs}
    failed: dict[str, str] = {}
    for _ in range(counts.spawns):
        for spec in specs:
            if spec.name in failed:
                continue
            try:
                with Session(spec, cpus).spawn() as (_contender, handshake):
                    handshakes[spec.name].append(handshake)
            except ContenderError as exc:
                log(f"[{spec.name}] spawn failed: {exc}")
                failed[spec.name] = str(exc)
    return {
        name: _spawn_times(found) if found else {"status": "unavailable", "reason": failed[name]}
        for name, found in handshakes.items()
    }


def _spawn_times(handshakes: list[Handshake]) -> dict[str, Any]:
    init = [h.spawn_to_init_ms for h in handshakes if h.spawn_to_init_ms is not None]
    hook = [h.spawn_to_first_hook_ms for h in handshakes]
    return {
        "status": "ok",
        "to_init_ms": init,
        "to_first_hook_ms": hook,
        "to_init_ms_median": statistics.median(init) if init else None,
        "to_first_hook_ms_median": statistics.median(hook),
    }


def measure_rss(
    spec: Spec, counts: Counts, cpus: set[int] | None, log: Log, requests: int
) -> dict[str, Any]:
    """VmRSS of a fresh process after ``rss_first`` and after ``requests`` requests at W=64."""
    session = Session(spec, cpus)
    marks = (counts.rss_first, requests)
    try:
        with session.spawn() as (contender, handshake):
            block = session.block(handshake, counts.n64)
            timeout_s = max(counts.run_timeout_s, requests / 1000)
            run = contender.run(
                block, requests, 64, timeout_s=timeout_s, rss_marks=marks, latency=False
            )
    except ContenderError as exc:
        log(f"[{spec.name}] RSS run failed: {exc}")
        return {"status": "unavailable", "reason": str(exc)}
    first, last = run.rss_kib_at[counts.rss_first], run.rss_kib_at[requests]
    log(f"[{spec.name}] RSS {first} KiB at {counts.rss_first:,}, {last} KiB at {requests:,}")
    return {
        "status": "ok",
        "requests": requests,
        "capped": requests < counts.rss_total,
        "window": 64,
        "first": counts.rss_first,
        "at_first_kib": first,
        "at_last_kib": last,
        "growth": last / first - 1,
        "answers_per_s": run.answers_per_s,
    }


def measure_sleepers(counts: Counts, cpus: set[int] | None, log: Log) -> dict[str, Any]:
    """hookd with 1,000 hooks in flight that each sleep 100 ms: total wall time."""
    session = Session(SLEEPER, cpus)
    try:
        with session.spawn() as (contender, handshake):
            block = session.block(handshake, counts.sleepers)
            run = contender.run(
                block, counts.sleepers, counts.sleepers, timeout_s=120, latency=False
            )
    except ContenderError as exc:
        log(f"[{SLEEPER.name}] unavailable: {exc}")
        return {"status": "unavailable", "reason": str(exc)}
    log(f"[{SLEEPER.name}] {counts.sleepers} sleepers in {run.wall_s * 1000:.0f} ms")
    return {"status": "ok", "requests": counts.sleepers, "wall_ms": run.wall_s * 1000}


def calibrate(counts: Counts, cpus: set[int] | None) -> dict[str, Any]:
    """The client alone: ``cat`` echoes each request line, so nothing is computed."""
    block = build_block(max(counts.n, counts.n64), "hook_1")
    contender = Contender(("cat",), cwd=str(ROOT), cpus=cpus)
    runs: dict[str, Any] = {}
    try:
        for window, n in ((1, counts.n), (64, counts.n64)):
            run = contender.run(block, n, window, timeout_s=counts.run_timeout_s, verify=False)
            runs[str(window)] = summary(run)
        with client_on(cpus):
            run = contender.run(block, counts.n, 1, timeout_s=counts.run_timeout_s, verify=False)
        runs[ONE_CORE] = summary(run)
    finally:
        contender.close()
    return runs


@contextmanager
def client_on(cpus: set[int] | None) -> Iterator[None]:
    """Run the client on the contender's CPUs for a while (no cross-core wake-ups)."""
    if cpus is None:
        yield
        return
    own = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus)
    try:
        yield
    finally:
        os.sched_setaffinity(0, own)
