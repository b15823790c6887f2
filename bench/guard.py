"""The destructive-command guard's own time per call, in-process.

``python -m bench.guard`` (``make bench`` runs it) times ``destructive_commands()``'s hook,
called directly (no transport) with a PreToolUse Bash input, on typical command lines (the
benign and dangerous lines of tests/guards/corpus/main.txt, each called in turn, many rounds)
and on adversarial 1 MB lines (dense words, nested substitutions, a megabyte heredoc). Prints
p50/p99 of each set against its target (typical p99 under 1 ms; adversarial max under 50 ms)
and writes ``bench/results/guard.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path
from typing import Any, Final

import trio

from hookd.guards import destructive_commands
from tests.guards.corpus import CWD, load

RESULTS: Final = Path(__file__).resolve().parent / "results" / "guard.json"
TYPICAL_P99_MS: Final = 1.0
ADVERSARIAL_MAX_MS: Final = 50.0
ADVERSARIAL: Final = {
    "1 MB of short words": "a " * 500_000,
    "1 MB of commands": "echo aa && " * 95_000,
    "1 MB of nested $(": "$(" * 500_000,
    "1 MB unquoted heredoc": "cat > f <<EOF\n" + "x = $y(1, 2) + z\n" * 60_000 + "EOF\n",
    "1 MB padding, then rm": ": " + "x " * 500_000 + "; rm -rf ~",
}


def _quantiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)

    def pick(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return {"p50_ms": pick(0.5), "p99_ms": pick(0.99), "max_ms": ordered[-1],
            "mean_ms": statistics.fmean(ordered), "n": len(ordered)}  # fmt: skip


async def _time(guard: Any, command: str) -> float:
    data = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": CWD,
            "tool_input": {"command": command}}  # fmt: skip
    start = time.perf_counter()
    await guard(data, "toolu_1", None)
    return (time.perf_counter() - start) * 1e3


async def measure(rounds: int, adversarial_rounds: int) -> dict[str, Any]:
    guard = destructive_commands()
    lines = [line.command for line in load("main")]
    await _time(guard, "ls")  # the grammar loads on the first call
    typical = [await _time(guard, line) for _ in range(rounds) for line in lines]
    hostile = {name: [await _time(guard, text) for _ in range(adversarial_rounds)]
               for name, text in ADVERSARIAL.items()}  # fmt: skip
    return {
        "python": platform.python_version(),
        "typical": {"lines": len(lines), **_quantiles(typical)},
        "adversarial": {name: _quantiles(samples) for name, samples in hostile.items()},
        "targets": {"typical_p99_ms": TYPICAL_P99_MS, "adversarial_max_ms": ADVERSARIAL_MAX_MS},
    }


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.guard", description=__doc__)
    parser.add_argument("--rounds", type=int, default=20, help="passes over the corpus (20)")
    parser.add_argument("--quick", action="store_true", help="2 passes, 3 per adversarial line")
    args = parser.parse_args()
    rounds, hostile = (2, 3) if args.quick else (args.rounds, 10)
    result = trio.run(measure, rounds, hostile)
    typical = result["typical"]
    print(f"typical ({typical['lines']} lines x {rounds}): p50 {typical['p50_ms']:.3f} ms, "
          f"p99 {typical['p99_ms']:.3f} ms (target p99 < {TYPICAL_P99_MS} ms)")  # fmt: skip
    worst = 0.0
    for name, q in result["adversarial"].items():
        worst = max(worst, q["max_ms"])
        print(f"{name:<24} p50 {q['p50_ms']:6.1f} ms, max {q['max_ms']:6.1f} ms")
    print(f"adversarial worst {worst:.1f} ms (target < {ADVERSARIAL_MAX_MS} ms)")
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    met = typical["p99_ms"] < TYPICAL_P99_MS and worst < ADVERSARIAL_MAX_MS
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
