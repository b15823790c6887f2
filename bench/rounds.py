"""The interleaved rounds: every contender measured in turn, round after round.

Each contender (but the spawn-per-call one) is spawned once, warmed up and kept
alive. Then, for each round, each contender in turn gets a run at 1 in flight,
one at 64 and one at 1 with the client on its core: floor, hookd, ..., floor,
hookd, ... Load from outside the benchmark then falls on every contender of a
round alike, and a ratio is taken within a round, never across rounds.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

from bench.client import Contender, ContenderError, Handshake
from bench.contenders import Counts, Session, Spec
from bench.phases import ONE_CORE, client_on, summary
from bench.workload import Block

__all__ = ["KEYS", "aggregate", "measure_once", "measure_rounds"]

Log = Callable[[str], None]
KEYS = ("1", "64", ONE_CORE)  # what each round measures


@dataclass
class _Live:
    """A contender kept alive across the rounds."""

    spec: Spec
    contender: Contender
    handshake: Handshake
    block: Block
    node: dict[str, Any]


def measure_rounds(
    specs: list[Spec], counts: Counts, cpus: set[int] | None, log: Log
) -> dict[str, dict[str, Any]]:
    """Spawn, warm up and plot each contender, then run the rounds; a node per contender."""
    nodes: dict[str, dict[str, Any]] = {}
    with ExitStack() as stack:
        live: list[_Live] = []
        for spec in specs:
            try:
                live.append(_start(stack, Session(spec, cpus), counts, log))
            except ContenderError as exc:
                log(f"[{spec.name}] unavailable: {exc}")
                nodes[spec.name] = {"status": "unavailable", "reason": str(exc)}
        for index in range(counts.rounds):
            log(f"round {index + 1} of {counts.rounds}")
            for item in [x for x in live if x.node["status"] == "ok"]:
                _round(item, counts, cpus, log)
        for item in live:
            if item.node["status"] == "ok":
                item.node["peak_rss_kib"] = item.contender.status()["VmHWM"]
            nodes[item.spec.name] = item.node
    return {spec.name: nodes[spec.name] for spec in specs}


def _start(stack: ExitStack, session: Session, counts: Counts, log: Log) -> _Live:
    contender, handshake = stack.enter_context(session.spawn())
    block = session.block(handshake, max(counts.n, counts.n64))
    contender.run(block, counts.warmup, 16, timeout_s=counts.run_timeout_s)
    plot = {}
    for window in (w for w in counts.windows if w not in (1, 64)):
        run = contender.run(block, counts.plot_n, window, timeout_s=counts.run_timeout_s)
        plot[str(window)] = summary(run)
    node = {
        "status": "ok",
        "callback_id": handshake.callback_id,
        "requests": {"1": counts.n, "64": counts.n64, ONE_CORE: counts.one_core_n},
        "rounds": [],
        "plot": plot,
    }
    log(f"[{session.spec.name}] started, warmed up")
    return _Live(session.spec, contender, handshake, block, node)


def _round(item: _Live, counts: Counts, cpus: set[int] | None, log: Log) -> None:
    """One run at 1 and at 64 in flight, and one at 1 on the contender's core."""
    out: dict[str, Any] = {}
    try:
        for key, n, window in (("1", counts.n, 1), ("64", counts.n64, 64)):
            run = item.contender.run(item.block, n, window, timeout_s=counts.run_timeout_s)
            out[key] = summary(run)
        with client_on(cpus):
            run = item.contender.run(
                item.block, counts.one_core_n, 1, timeout_s=counts.run_timeout_s
            )
        out[ONE_CORE] = summary(run)
    except ContenderError as exc:
        log(f"[{item.spec.name}] failed in a round: {exc}")
        item.node.update(status="unavailable", reason=str(exc))
        return
    item.node["rounds"].append(out)
    rates = ", ".join(f"W={k.replace('_', ' ')} {out[k]['answers_per_s']:,.0f}" for k in KEYS)
    log(f"[{item.spec.name}] {rates} ans/s")


def measure_once(spec: Spec, counts: Counts, cpus: set[int] | None, log: Log) -> dict[str, Any]:
    """A spawn-per-call contender: one pass over the windows (it is spawn-bound anyway)."""
    session = Session(spec, cpus)
    try:
        with session.spawn() as (contender, handshake):
            block = session.block(handshake, counts.per_call_n)
            runs = {}
            for window in counts.windows:
                n = counts.requests(spec, window)
                run = contender.run(block, n, window, timeout_s=counts.run_timeout_s)
                runs[str(window)] = summary(run)
                log(f"[{spec.name}] W={window}: {run.answers_per_s:,.0f} ans/s")
            peak = contender.status()["VmHWM"]
    except ContenderError as exc:
        log(f"[{spec.name}] unavailable: {exc}")
        return {"status": "unavailable", "reason": str(exc)}
    plot = {k: v for k, v in runs.items() if k not in KEYS}
    return {
        "status": "ok",
        "callback_id": handshake.callback_id,
        "requests": {"1": counts.per_call_n, "64": counts.per_call_n},
        "rounds": [{k: v for k, v in runs.items() if k in KEYS}],
        "plot": plot,
        "peak_rss_kib": peak,
    }


def aggregate(nodes: dict[str, dict[str, Any]]) -> None:
    """Per contender: median rates, CPU per answer, latency; ratios to the floor per round."""
    for node in nodes.values():
        if node.get("status") == "ok":
            node["median"] = {k: _median(node, k, "answers_per_s") for k in KEYS}
            node["cpu_us"] = {k: _cpu(node, k) for k in KEYS}
            node["latency_1"] = {q: _median(node, "1", q) for q in ("p50_us", "p99_us")}
    floor = nodes.get("floor", {})
    for node in nodes.values():
        if node.get("status") == "ok" and floor.get("status") == "ok":
            node["ratio"] = {k: _ratio(node, floor, k) for k in KEYS}


def _median(node: dict[str, Any], key: str, field: str) -> float | None:
    values = [r[key][field] for r in node["rounds"] if key in r and r[key][field] is not None]
    return statistics.median(values) if values else None


def _cpu(node: dict[str, Any], key: str) -> dict[str, float] | None:
    """CPU per answer over every round at ``key``: the contender's own and the client's."""
    runs = [r[key] for r in node["rounds"] if key in r]
    answers = sum(run["n"] for run in runs)
    if not answers:
        return None
    own = sum(run["contender_cpu_us_per_answer"] * run["n"] for run in runs) / answers
    client = sum(run["client_cpu_us_per_answer"] * run["n"] for run in runs) / answers
    return {"own": own, "client": client}


def _ratio(node: dict[str, Any], floor: dict[str, Any], key: str) -> dict[str, Any] | None:
    """Rate / the floor's rate in the same round (or the floor's median, if not paired)."""
    mine = [r[key]["answers_per_s"] if key in r else None for r in node["rounds"]]
    theirs = [r[key]["answers_per_s"] for r in floor["rounds"] if key in r]
    if not theirs or all(m is None for m in mine):
        return None
    if len(mine) == len(theirs) and None not in mine:
        per_round = [m / f for m, f in zip(mine, theirs, strict=True) if m is not None]
    else:
        per_round = [m / statistics.median(theirs) for m in mine if m is not None]
    quartiles = statistics.quantiles(per_round, n=4) if len(per_round) > 1 else per_round * 3
    return {
        "median": statistics.median(per_round),
        "min": min(per_round),
        "max": max(per_round),
        "q1": quartiles[0],
        "q3": quartiles[2],
        "per_round": per_round,
    }
