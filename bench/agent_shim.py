"""The agent command shim against a plain ``python3`` command hook making the same decision.

``python -m bench.agent_shim`` (``make bench`` runs it) starts ``hookd serve examples/guard.py
--http 127.0.0.1:0`` (the warm daemon), then times, interleaved in one run, a Gemini CLI
``BeforeTool`` call that the guard denies, answered two ways as the agent would spawn them:
``bash hookd/agents/hookd-agent.sh`` (the shim, forwarding to the daemon, with the arguments
``hookd install --agent`` writes) and ``python3 -c`` reading the same payload and printing the
same deny. Each round spawns each once, in alternating order; the time is spawn to exit, stdin
written and stdout read. Prints the p10/p50/p90 of each and the shim/python ratio of the
medians, with the spread of the per-round ratios (p10-p90); the target is at most 1/3. Writes
``bench/results/agent_shim.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Final

from hookd.agents import SHIM

ROOT: Final = Path(__file__).resolve().parents[1]
GUARD: Final = ROOT / "examples" / "guard.py"
RESULTS: Final = ROOT / "bench" / "results" / "agent_shim.json"
TARGET_RATIO: Final = 1 / 3

PAYLOAD: Final = json.dumps(
    {
        "session_id": "bench-session",
        "transcript_path": "/tmp/bench.jsonl",
        "cwd": "/tmp",
        "hook_event_name": "BeforeTool",
        "timestamp": "2026-01-01T00:00:00Z",
        "tool_name": "run_shell_command",
        "tool_input": {"command": "rm -rf /", "description": "clean up"},
    }
).encode()
EXPECTED: Final = {"decision": "deny", "reason": "blocked by guard: recursive delete of /"}

#: The same decision as a plain command hook would make it.
PLAIN: Final = r"""
import json, re, sys
data = json.load(sys.stdin)
command = str(data.get("tool_input", {}).get("command", ""))
if re.search(r"\brm\s+-[a-zA-Z]*r[a-zA-Z]*f?\s+/(\s|$)", command):
    json.dump({"decision": "deny", "reason": "blocked by guard: recursive delete of /"}, sys.stdout)
"""


def _timed(argv: list[str]) -> float:
    started = time.perf_counter()
    out = subprocess.run(argv, input=PAYLOAD, capture_output=True, check=False)
    elapsed_ms = (time.perf_counter() - started) * 1000
    if out.returncode != 0 or json.loads(out.stdout) != EXPECTED:
        raise SystemExit(
            f"bench: {argv[0]} answered {out.returncode} {out.stdout!r} {out.stderr!r}"
        )
    return elapsed_ms


def _hookd() -> str:
    return str(Path(sys.executable).with_name("hookd"))


def _start(workdir: Path) -> tuple[subprocess.Popen[bytes], int, Path, Path]:
    token = workdir / "token"
    token.write_text(secrets.token_hex(16) + "\n")
    ready = workdir / "ready.json"
    hookd = _hookd()
    argv = [hookd, "serve", str(GUARD), "--http", "127.0.0.1:0", "--token-file", str(token),
            "--ready-file", str(ready), "--log-level", "warning"]  # fmt: skip
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    deadline = time.monotonic() + 30
    while not ready.exists():  # the ready file is written once the port is known
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"bench: hookd serve did not start: {proc.stderr.read().decode()}")
        time.sleep(0.05)
    return proc, int(json.loads(ready.read_text())["port"]), token, ready


def _spread(values: list[float]) -> dict[str, float]:
    deciles = statistics.quantiles(values, n=10)
    return {"p10": deciles[0], "p50": statistics.median(values), "p90": deciles[-1]}


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.agent_shim", description=__doc__)
    parser.add_argument("--rounds", type=int, default=200, help="interleaved rounds (200)")
    args = parser.parse_args()
    python3 = shutil.which("python3", path="/usr/bin:/bin") or "python3"
    with tempfile.TemporaryDirectory() as tmp:
        proc, port, token, ready = _start(Path(tmp))
        try:  # the words hookd install writes: the daemon's ready file settles who listens
            shim = ["bash", SHIM, str(port), str(token), "gemini/BeforeTool", "55", "closed",
                    _hookd(), str(GUARD), str(ready)]  # fmt: skip
            plain = [python3, "-c", PLAIN]
            for _ in range(10):  # warm up both (page cache, the daemon's first call)
                _timed(shim)
                _timed(plain)
            shim_ms: list[float] = []
            plain_ms: list[float] = []
            ratios: list[float] = []
            for i in range(args.rounds):
                if i % 2:  # alternate which goes first
                    s, p = _timed(shim), _timed(plain)
                else:
                    p, s = _timed(plain), _timed(shim)
                shim_ms.append(s)
                plain_ms.append(p)
                ratios.append(s / p)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    result = {
        "rounds": args.rounds,
        "cores": os.cpu_count(),
        "shim_ms": _spread(shim_ms),
        "python3_ms": _spread(plain_ms),
        "ratio_of_medians": statistics.median(shim_ms) / statistics.median(plain_ms),
        "ratio_per_round": _spread(ratios),
        "target_ratio": TARGET_RATIO,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    _print(result)
    return 0


def _print(result: dict[str, object]) -> None:
    def row(name: str, spread: object) -> str:
        assert isinstance(spread, dict)
        return f"{name:<22} {spread['p10']:8.2f} {spread['p50']:8.2f} {spread['p90']:8.2f}"

    print(f"agent shim vs python3 command hook, {result['rounds']} interleaved rounds")
    print(f"{'ms (spawn to exit)':<22} {'p10':>8} {'p50':>8} {'p90':>8}")
    print(row("hookd-agent.sh", result["shim_ms"]))
    print(row("python3 -c", result["python3_ms"]))
    spread = result["ratio_per_round"]
    assert isinstance(spread, dict)
    print(
        f"ratio shim/python3: {result['ratio_of_medians']:.3f} (per round p10-p90 "
        f"{spread['p10']:.3f}-{spread['p90']:.3f}); target <= {TARGET_RATIO:.3f}"
    )


if __name__ == "__main__":
    sys.exit(main())
