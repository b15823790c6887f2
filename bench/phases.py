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

__all__ = ["ONE_CORE", "calibrate", "measure", "measure_rss", "measure_sleepers", "remeasure"]

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


def measure(spec: Spec, counts: Counts, cpus: set[int] | None, log: Log) -> dict[str, Any]:
    """Throughput, latency, peak RSS and spawn times; ``unavailable`` if it failed."""
    session = Session(spec, cpus)
    try:
        result = _throughput(session, counts, log)
        result["spawn"] = _spawns(session, counts, result.pop("first_handshake"))
    except ContenderError as exc:
        log(f"[{spec.name}] unavailable: {exc}")
        return {"status": "unavailable", "reason": str(exc)}
    return result


def _windows(
    session: Session, counts: Counts, windows: tuple[int, ...], log: Log
) -> tuple[dict[str, Any], int, Handshake]:
    """Warm up, run each window, then W=1 on one core; also the peak RSS after them."""
    spec, n = session.spec, counts.requests(session.spec)
    runs: dict[str, Any] = {}
    with session.spawn() as (contender, handshake):
        block = session.block(handshake, n)
        contender.run(block, min(n, counts.warmup), 16, timeout_s=counts.run_timeout_s)
        for window in windows:
            count = counts.requests(spec, window)
            run = contender.run(block, count, window, timeout_s=counts.run_timeout_s)
            runs[str(window)] = summary(run)
            log(f"[{spec.name}] W={window}: {run.answers_per_s:,.0f} ans/s")
        if not spec.spawns_per_call:
            with client_on(session.cpus):
                run = contender.run(block, counts.one_core_n, 1, timeout_s=counts.run_timeout_s)
            runs[ONE_CORE] = summary(run)
            log(f"[{spec.name}] W=1, one core: {run.answers_per_s:,.0f} ans/s")
        peak_kib = contender.status()["VmHWM"]
    return runs, peak_kib, handshake


def _throughput(session: Session, counts: Counts, log: Log) -> dict[str, Any]:
    runs, peak_kib, handshake = _windows(session, counts, counts.windows, log)
    return {
        "status": "ok",
        "requests": counts.requests(session.spec),
        "callback_id": handshake.callback_id,
        "runs": runs,
        "rounds": [{key: run["answers_per_s"] for key, run in runs.items()}],
        "peak_rss_kib": peak_kib,
        "first_handshake": handshake,
    }


def remeasure(spec: Spec, counts: Counts, cpus: set[int] | None, log: Log, node: Any) -> None:
    """Another round at 1 and 64 in flight (and one core) in a fresh process; keep the best.

    Load from outside the benchmark only ever slows a run down, so the faster of two
    rounds taken minutes apart is the better estimate of what the contender can do.
    """
    try:
        runs, _peak, _handshake = _windows(Session(spec, cpus), counts, (1, 64), log)
    except ContenderError as exc:
        log(f"[{spec.name}] second round failed: {exc}")
        return
    node["rounds"].append({key: run["answers_per_s"] for key, run in runs.items()})
    for key, run in runs.items():
        if run["answers_per_s"] > node["runs"][key]["answers_per_s"]:
            node["runs"][key] = run


def _spawns(session: Session, counts: Counts, first: Handshake) -> dict[str, Any]:
    handshakes = [first]
    for _ in range(counts.spawns - 1):
        with session.spawn() as (_contender, handshake):
            handshakes.append(handshake)
    init = [h.spawn_to_init_ms for h in handshakes if h.spawn_to_init_ms is not None]
    hook = [h.spawn_to_first_hook_ms for h in handshakes]
    return {
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
            block = session.block(handshake, counts.n)
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
    block = build_block(counts.n, "hook_1")
    contender = Contender(("cat",), cwd=str(ROOT), cpus=cpus)
    runs: dict[str, Any] = {}
    try:
        for window in (1, 64):
            run = contender.run(
                block, counts.n, window, timeout_s=counts.run_timeout_s, verify=False
            )
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
