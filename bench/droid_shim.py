"""What hookd's shim costs a real Droid tool call, against a plain ``python3`` command hook.

    .venv/bin/python -m bench.droid_shim [ROUNDS [CALLS]]

``hookd install --agent droid`` writes ``.factory/hooks.json`` for ``examples/guard.py`` in a
scratch project, and starts its daemon (warm). Each round runs ``droid exec`` (pinned
``@factory/cli``, offline against the fake Anthropic model of tests/support/droid_drive.py)
three times, in an order that turns each round: with hookd's PreToolUse entry (``bash
hookd-agent.sh ...``, as install wrote it), with a plain ``/usr/bin/python3`` command hook
making the same decision (the interpreter itself, not a version manager's shim), and with no
hook. Each run makes CALLS ``Execute`` calls of ``true``, which both hooks allow.

Per call: the hook's own time as Droid logs it (``[Hooks] Executing hooks`` to ``[Hooks]
Command completed``, millisecond stamps: spawn, the hook, its exit); per run: the wall time,
whose difference from the run without a hook, over CALLS, is what a call pays in all.
Printed: medians, the spread over calls (p10-p90) and the shim/python3 ratio of the medians
with the spread of the per-round ratios. Writes ``bench/results/droid_shim.json``.
"""

from __future__ import annotations

import json
import re
import shutil
import statistics
import sys
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from tests.agents.test_shim import free_port
from tests.daemon.support import Box, hookd
from tests.support.droid_drive import drive_droid

ROOT: Final = Path(__file__).resolve().parents[1]
GUARD: Final = ROOT / "examples" / "guard.py"
RESULTS: Final = ROOT / "bench" / "results" / "droid_shim.json"
STAMP: Final = re.compile(r"^\[(\S+)Z\] INFO: \[Hooks\] (Executing hooks|Command completed)")
#: The guard's decision as a plain command hook would make it, in Droid's answer (exit 2).
PLAIN: Final = r"""
import json, re, sys
data = json.load(sys.stdin)
command = str(data.get("tool_input", {}).get("command", ""))
if re.search(r"\brm\s+-[a-zA-Z]*r[a-zA-Z]*f?\s+/(\s|$)", command):
    print("blocked by guard: recursive delete of /", file=sys.stderr)
    sys.exit(2)
"""


def hook_ms(log: str) -> list[float]:
    """Each hook's time in a Droid log, in milliseconds."""
    out, start = [], None
    for line in log.splitlines():
        found = STAMP.match(line)
        if found is None:
            continue
        at = datetime.fromisoformat(found.group(1))
        if found.group(2) == "Executing hooks":
            start = at
        elif start is not None:
            out.append((at - start).total_seconds() * 1000)
            start = None
    return out


def _spread(values: list[float]) -> dict[str, float]:
    deciles = statistics.quantiles(values, n=10) if len(values) > 1 else values * 9
    return {"p10": deciles[0], "p50": statistics.median(values), "p90": deciles[-1]}


def _entry(command: str) -> dict[str, Any]:
    return {"PreToolUse": [{"hooks": [{"type": "command", "command": command, "timeout": 30}]}]}


def _installed(box: Box) -> dict[str, Any]:
    """hookd's entries for the guard, as ``hookd install --agent droid`` writes them (the
    daemon started)."""
    module = box.project / ".claude" / "hooks.py"
    module.parent.mkdir(parents=True)
    shutil.copy(GUARD, module)
    done = hookd(box, "install", "--agent", "droid", str(module), "--port", str(free_port()))
    if done.returncode != 0:
        raise SystemExit(f"bench: hookd install failed: {done.stderr}")
    config: dict[str, Any] = json.loads((box.project / ".factory" / "hooks.json").read_text())
    return {"PreToolUse": config["PreToolUse"]}


def main(argv: list[str]) -> int:
    rounds = int(argv[0]) if argv else 8
    calls = int(argv[1]) if len(argv) > 1 else 6
    python3 = shutil.which("python3", path="/usr/bin:/bin") or sys.executable
    with tempfile.TemporaryDirectory(prefix="droid-bench-") as tmp:
        box = Box(Path(tmp) / "box")
        box.env()
        try:
            variants: dict[str, dict[str, Any] | None] = {
                "hookd shim": _installed(box),
                "python3": _entry(f"{python3} -c {json.dumps(PLAIN)}"),
                "no hook": None,
            }
            names = list(variants)
            drive_droid(Path(tmp) / "run", variants["hookd shim"], ["true"])  # warm up
            hooks: dict[str, list[float]] = {n: [] for n in names}
            walls: dict[str, list[float]] = {n: [] for n in names}
            ratios: list[float] = []
            for r in range(rounds):
                per: dict[str, list[float]] = {}
                for name in names[r % 3 :] + names[: r % 3]:
                    run = drive_droid(Path(tmp) / "run", variants[name], ["true"] * calls)
                    if run.exit_code != 0:
                        raise SystemExit(f"bench: droid exited {run.exit_code}: {run.stderr}")
                    per[name] = hook_ms(run.log())
                    hooks[name] += per[name]
                    walls[name].append(run.wall_s)
                ratios.append(statistics.median(per["hookd shim"])
                              / statistics.median(per["python3"]))  # fmt: skip
        finally:
            hookd(box, "down")
    base = statistics.median(walls["no hook"])
    result = {
        "rounds": rounds,
        "calls_per_run": calls,
        "hook_ms": {n: _spread(hooks[n]) for n in names if hooks[n]},
        "added_ms_per_call": {
            n: (statistics.median(walls[n]) - base) * 1000 / calls for n in names
        },
        "ratio_of_medians": statistics.median(hooks["hookd shim"])
        / statistics.median(hooks["python3"]),
        "ratio_per_round": _spread(ratios),
        "python3": python3,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    _print(result)
    return 0


def _print(result: dict[str, Any]) -> None:
    print(f"droid PreToolUse hook, {result['rounds']} interleaved rounds of "
          f"{result['calls_per_run']} calls")  # fmt: skip
    print(f"{'hook ms (Droid log)':<22} {'p10':>7} {'p50':>7} {'p90':>7}  run +ms/call")
    for name, spread in result["hook_ms"].items():
        added = result["added_ms_per_call"][name]
        print(f"{name:<22} {spread['p10']:7.1f} {spread['p50']:7.1f} {spread['p90']:7.1f}"
              f"  {added:+.0f}")  # fmt: skip
    spread = result["ratio_per_round"]
    print(f"ratio shim/python3: {result['ratio_of_medians']:.2f} (per round p10-p90 "
          f"{spread['p10']:.2f}-{spread['p90']:.2f})")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
