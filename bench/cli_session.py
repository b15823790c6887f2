"""A real Claude Code session with hooks, three ways, side by side in one run.

Each session is the real CLI (bundled in claude-agent-sdk) in print mode against
the fake Messages API, making 30 Bash calls (``echo N``), with PreToolUse and
PostToolUse hooks that return ``{}``:

* ``none``: no hooks at all;
* ``command``: ``python3 bench/session_cmd_hook.py`` as a settings.json command hook;
* ``hookd``: ``bench/session_hooks.py`` served by the hookd daemon, as ``hookd install``
  wrote the settings (http hooks, ``hookd up`` at SessionStart and on the prompt).

Rounds interleave the three (the order rotates each round), so a noisy machine
hurts them alike. Also measured: ``hookd up`` with the daemon already running,
and the ``hookd call`` shim's round trip (start-up included). Results go to
``bench/results/cli_session.json``; the table to stdout.

    .venv/bin/python -m bench.cli_session [--rounds 5] [--calls 30]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tests.daemon.support import HOOKD, Box
from tests.support.claude_cli import MODEL, cli_env, find_claude
from tests.support.fake_anthropic import FakeAnthropic, n_tool_calls

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
CONFIGS = ("none", "command", "hookd")
TARGET_RATIO = 0.2
PRE_INPUT = {
    "session_id": "bench",
    "transcript_path": "/tmp/bench.jsonl",
    "cwd": "/tmp",
    "permission_mode": "default",
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "echo 1", "description": "Print 1"},
    "tool_use_id": "toolu_bench",
}


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def command_settings() -> dict[str, Any]:
    """Pre and Post command hooks running the base interpreter, as a user's settings would."""
    python3 = shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin") or "python3"
    handler = {"type": "command", "command": f"{python3} {HERE / 'session_cmd_hook.py'}"}
    group = {"matcher": "Bash", "hooks": [handler]}
    return {"hooks": {"PreToolUse": [group], "PostToolUse": [group]}}


def prepare(root: Path) -> dict[str, Box]:
    """One private project per configuration; the hookd one installed and its daemon up."""
    boxes = {name: Box(root / name) for name in CONFIGS}
    for box in boxes.values():
        box.env()
    claude_dir = boxes["command"].project / ".claude"
    claude_dir.mkdir()
    (claude_dir / "settings.local.json").write_text(json.dumps(command_settings()))
    hookd_box = boxes["hookd"]
    (hookd_box.project / ".claude").mkdir()
    shutil.copy(HERE / "session_hooks.py", hookd_box.project / ".claude" / "hooks.py")
    done = hookd(hookd_box, "install", ".claude/hooks.py")
    if done.returncode != 0:
        raise SystemExit(f"hookd install failed: {done.stderr}")
    return boxes


def hookd(box: Box, *args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [HOOKD, *args],
        input=stdin.decode(),
        capture_output=True,
        text=True,
        cwd=box.project,
        env=box.env(),
        timeout=120,
        check=False,
    )


def session(claude: Path, box: Box, calls: int) -> float:
    """Seconds from spawning ``claude -p`` to its exit; the session must succeed."""
    with FakeAnthropic(n_tool_calls(calls)) as api:
        env = {**cli_env(box.home, api.base_url), **box.env()}
        argv = [
            str(claude), "-p", "go", "--output-format", "stream-json", "--verbose",
            "--system-prompt", "", "--model", MODEL, "--permission-mode", "default",
        ]  # fmt: skip
        started = time.perf_counter()
        done = subprocess.run(
            argv, cwd=box.project, env=env, capture_output=True, text=True, timeout=600, check=False
        )
        elapsed = time.perf_counter() - started
    results = [m for m in map(_json, done.stdout.splitlines()) if m.get("type") == "result"]
    ok = done.returncode == 0 and results and results[-1].get("subtype") == "success"
    if not ok or len(api.message_requests) < calls + 1:
        raise SystemExit(f"a session failed ({box.root.name}): {done.stderr[-2000:]}")
    return elapsed


def _json(line: str) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def timed(box: Box, args: Sequence[str], n: int, stdin: bytes = b"") -> list[float]:
    """Wall milliseconds of ``hookd ARGS``, ``n`` times (each must exit 0)."""
    out = []
    for _ in range(n):
        started = time.perf_counter()
        done = hookd(box, *args, stdin=stdin)
        out.append((time.perf_counter() - started) * 1000)
        if done.returncode != 0:
            raise SystemExit(f"hookd {' '.join(args)} failed: {done.stderr}")
    return out


def summary(values: Sequence[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "median": statistics.median(ordered),
        "min": ordered[0],
        "max": ordered[-1],
        "p90": ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))],
    }


def measure(claude: Path, boxes: dict[str, Box], rounds: int, calls: int) -> dict[str, Any]:
    walls: dict[str, list[float]] = {name: [] for name in CONFIGS}
    session(claude, boxes["hookd"], 2)  # warm-up: page cache, the daemon's first requests
    for r in range(rounds):
        order = CONFIGS[r % 3 :] + CONFIGS[: r % 3]
        for name in order:
            walls[name].append(session(claude, boxes[name], calls))
        log(f"round {r + 1}/{rounds}: " + ", ".join(f"{n} {walls[n][-1]:.2f}s" for n in CONFIGS))
    module = str(boxes["hookd"].project / ".claude" / "hooks.py")
    up = timed(boxes["hookd"], ["up", "--quiet", module], 20)
    call = timed(
        boxes["hookd"],
        ["call", "PreToolUse", "--hooks", module],
        20,
        json.dumps(PRE_INPUT).encode(),
    )
    medians = {name: statistics.median(v) for name, v in walls.items()}
    sessions = {name: {**summary(v), "runs_s": v} for name, v in walls.items()}
    added = {name: medians[name] - medians["none"] for name in ("command", "hookd")}
    ratio = added["hookd"] / added["command"] if added["command"] > 0 else float("nan")
    return {
        "rounds": rounds,
        "calls_per_session": calls,
        "sessions_s": sessions,
        "added_s": added,
        "ratio_hookd_to_command": ratio,
        "target_ratio": TARGET_RATIO,
        "up_already_running_ms": {**summary(up), "runs_ms": up},
        "call_round_trip_ms": {**summary(call), "runs_ms": call},
    }


def render(res: dict[str, Any]) -> str:
    s = res["sessions_s"]
    lines = [f"real CLI session, {res['calls_per_session']} Bash calls with PreToolUse+PostToolUse "
             f"hooks, {res['rounds']} interleaved rounds (seconds: median, min-max)"]  # fmt: skip
    for name in CONFIGS:
        added = f"  adds {res['added_s'][name]:+.2f}s" if name in res["added_s"] else ""
        one = s[name]
        lines.append(f"  {name:8} {one['median']:6.2f}  ({one['min']:.2f}-{one['max']:.2f}){added}")
    ratio = res["ratio_hookd_to_command"]
    verdict = "met" if ratio <= res["target_ratio"] else "NOT met"
    lines.append(f"  hookd adds {ratio:.2f}x what the command hook adds (target <= 0.2: {verdict})")
    for key, label in (("up_already_running_ms", "hookd up, daemon running"),
                       ("call_round_trip_ms", "hookd call round trip")):  # fmt: skip
        v = res[key]
        lines.append(
            f"  {label}: median {v['median']:.0f} ms, p90 {v['p90']:.0f} ms "
            f"({v['min']:.0f}-{v['max']:.0f})"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cli_session", description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args(argv)
    claude = find_claude()
    if claude is None:
        log("the Claude Code CLI bundled with claude-agent-sdk is not installed")
        return 1
    with tempfile.TemporaryDirectory(prefix="hookd-bench-") as tmp:
        boxes = prepare(Path(tmp))
        try:
            res = measure(claude, boxes, args.rounds, args.calls)
        finally:
            hookd(boxes["hookd"], "down")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "cli_session.json").write_text(json.dumps(res, indent=2) + "\n")
    print(render(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
