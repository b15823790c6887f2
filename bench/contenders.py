"""Who is measured, and how each one is measured.

Every contender is a real process on pipes, driven by the same client with the
same requests. A contender that cannot start or answer is reported as
unavailable with the reason, and the run goes on.
"""

from __future__ import annotations

import os
import statistics
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from bench.client import Contender, ContenderError, Handshake, RunResult
from bench.workload import Block, build_block

__all__ = [
    "CONTENDERS",
    "Counts",
    "Spec",
    "calibrate",
    "measure",
    "measure_rss",
    "measure_sleepers",
]

ROOT: Final = Path(__file__).resolve().parent.parent
BENCH: Final = ROOT / "bench"
PYTHON: Final = sys.executable
HOOKD: Final = str(ROOT / ".venv" / "bin" / "hookd")
HANDSHAKE_TIMEOUT_S: Final = 30.0
# Contenders run as on a user's machine: bytecode caches on, stdio buffering default.
ENV: Final = {
    k: v
    for k, v in os.environ.items()
    if k not in {"PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "PYTHONPATH"}
}
Log = Callable[[str], None]


@dataclass(frozen=True)
class Spec:
    name: str
    argv: tuple[str, ...]
    sends_initialize: bool = False  # the SDK sends initialize instead of answering it
    spawns_per_call: bool = False  # far fewer requests
    long_rss: bool = True  # takes part in the 1,000,000-request RSS run


@dataclass(frozen=True)
class Counts:
    n: int = 20_000  # at 1 and 64 in flight
    plot_n: int = 10_000  # at the other windows: points of the plot only
    one_core_n: int = 5_000
    windows: tuple[int, ...] = (1, 4, 16, 64)
    warmup: int = 2_000
    spawns: int = 3
    rss_first: int = 10_000
    rss_total: int = 1_000_000
    per_call_n: int = 300
    per_call_plot_n: int = 50
    sleepers: int = 1_000
    run_timeout_s: float = 240.0
    budget_s: float = 560.0  # the whole run; RSS runs are capped to fit

    def requests(self, spec: Spec, window: int = 1) -> int:
        main = window in (1, 64)
        if spec.spawns_per_call:
            return self.per_call_n if main else self.per_call_plot_n
        return self.n if main else self.plot_n


CONTENDERS: Final = (
    Spec("floor", (PYTHON, str(BENCH / "floor.py"))),
    Spec("hookd", (HOOKD, "serve", str(BENCH / "hook_allow.py"))),
    Spec(
        "hookd-novalidate",
        (HOOKD, "serve", "--no-validate", str(BENCH / "hook_allow.py")),
        long_rss=False,
    ),
    Spec("sdk", (PYTHON, str(BENCH / "sdk_contender.py")), sends_initialize=True, long_rss=False),
    Spec(
        "command",
        (PYTHON, str(BENCH / "command_contender.py")),
        spawns_per_call=True,
        long_rss=False,
    ),
)
SLEEPER: Final = Spec("hookd-sleep", (HOOKD, "serve", str(BENCH / "hook_sleep.py")))


@dataclass
class Session:
    """Spawns contenders for one spec, reusing request blocks per callback id."""

    spec: Spec
    cpus: set[int] | None
    blocks: dict[tuple[str, int], Block] = field(default_factory=dict)

    @contextmanager
    def spawn(self) -> Iterator[tuple[Contender, Handshake]]:
        contender = Contender(self.spec.argv, cwd=str(ROOT), cpus=self.cpus, env=ENV)
        try:
            handshake = contender.handshake(
                contender_sends_initialize=self.spec.sends_initialize,
                timeout_s=HANDSHAKE_TIMEOUT_S,
            )
            yield contender, handshake
        finally:
            contender.close()

    def block(self, handshake: Handshake, n: int) -> Block:
        key = (handshake.callback_id, n)
        if key not in self.blocks:
            self.blocks[key] = build_block(n, handshake.callback_id)
        return self.blocks[key]


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


def _throughput(session: Session, counts: Counts, log: Log) -> dict[str, Any]:
    n = counts.requests(session.spec)
    runs: dict[str, Any] = {}
    same_core: dict[str, Any] | None = None
    with session.spawn() as (contender, handshake):
        block = session.block(handshake, n)
        contender.run(block, min(n, counts.warmup), 16, timeout_s=counts.run_timeout_s)
        for window in counts.windows:
            count = counts.requests(session.spec, window)
            run = contender.run(block, count, window, timeout_s=counts.run_timeout_s)
            runs[str(window)] = summary(run)
            log(f"[{session.spec.name}] W={window}: {run.answers_per_s:,.0f} ans/s")
        if not session.spec.spawns_per_call:
            with client_on(session.cpus):
                run = contender.run(block, counts.one_core_n, 1, timeout_s=counts.run_timeout_s)
            same_core = summary(run)
            log(f"[{session.spec.name}] W=1, one core: {run.answers_per_s:,.0f} ans/s")
        status = contender.status()
    return {
        "status": "ok",
        "requests": n,
        "callback_id": handshake.callback_id,
        "runs": runs,
        "same_core_w1": same_core,
        "peak_rss_kib": status["VmHWM"],
        "first_handshake": handshake,
    }


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
        runs["same_core_w1"] = summary(run)
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
