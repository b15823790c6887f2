"""A real Claude Code session with hooks, three ways, side by side in one run.

Each session is the real CLI (bundled in claude-agent-sdk) in print mode against
the fake Messages API, making 30 Bash calls (``echo N``), with PreToolUse and
PostToolUse hooks that return ``{}``:

* ``none``: no hooks at all;
* ``command``: ``python3 bench/session_cmd_hook.py`` as a settings.json command hook;
* ``http-floor``: the same http hooks pointed at a server that answers ``{}`` and
  does nothing else (:mod:`bench.http_floor`): the least any http hook server adds;
* ``hookd``: ``bench/session_hooks.py`` served by the hookd daemon, as ``hookd install``
  wrote the settings (http hooks, the ``hookd call`` shim at SessionStart and on the prompt).

Rounds interleave the four (the order rotates each round), so a noisy machine
hurts them alike. Each session writes the CLI's debug log of its hooks
(``--debug=hooks --debug-file``: a few lines per hook), and
the hooks' own time is read from it (:mod:`bench.cli_debug`): beside the
wall-clock ratio (what hookd adds to a session over what the command hook adds),
the hook-time ratio (hookd's summed hook time over the command hooks'), per
round, which the noise between rounds does not reach. Also measured: the
installed prompt shim (``hookd call UserPromptSubmit``, run by ``sh -c`` as the CLI
runs it) with the daemon already running, beside a bare interpreter's start, and the ``hookd call``
shim's round trip (start-up included). Results go to
``bench/results/cli_session.json``; the table to stdout.

    .venv/bin/python -m bench.cli_session [--rounds 7] [--calls 30] [--no-debug]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.cli_debug import HookTimes, hook_times
from bench.http_floor import floor_server
from tests.daemon.support import HOOKD, Box
from tests.support.claude_cli import MODEL, cli_env, find_claude
from tests.support.fake_anthropic import FakeAnthropic, n_tool_calls

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
#: ``HOOKD_BENCH_BASE=DIR`` (a checkout of another commit, with its own ``.venv``) adds that
#: commit's hookd as ``hookd-base``, installed and measured in the same rounds: old against new.
BASE = os.environ.get("HOOKD_BENCH_BASE")
HOOKD_OF = {
    "hookd": HOOKD,
    **({"hookd-base": str(Path(BASE) / ".venv" / "bin" / "hookd")} if BASE else {}),
}
CONFIGS = ("none", "command", "http-floor", *HOOKD_OF)
#: The http configurations, each compared with the command hook.
SERVED = ("http-floor", *HOOKD_OF)
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


def prepare(root: Path, floor_port: int) -> dict[str, Box]:
    """One private project per configuration; the hookd one installed and its daemon up."""
    boxes = {name: Box(root / name) for name in CONFIGS}
    for box in boxes.values():
        box.env()
    claude_dir = boxes["command"].project / ".claude"
    claude_dir.mkdir()
    (claude_dir / "settings.local.json").write_text(json.dumps(command_settings()))
    for name in HOOKD_OF:
        (boxes[name].project / ".claude").mkdir()
        shutil.copy(HERE / "session_hooks.py", boxes[name].project / ".claude" / "hooks.py")
        done = hookd(boxes[name], "install", ".claude/hooks.py", name=name)
        if done.returncode != 0:
            raise SystemExit(f"{name} install failed: {done.stderr}")
    hookd_box = boxes["hookd"]
    floor_dir = boxes["http-floor"].project / ".claude"
    floor_dir.mkdir()
    installed = json.loads((hookd_box.project / ".claude" / "settings.local.json").read_text())
    floor = floor_settings(installed, floor_port)
    (floor_dir / "settings.local.json").write_text(json.dumps(floor))
    return boxes


def floor_settings(installed: dict[str, Any], port: int) -> dict[str, Any]:
    """hookd's http entries (matcher, timeout, headers, onFailure) aimed at the floor server."""
    hooks = {}
    for event in ("PreToolUse", "PostToolUse"):
        groups = json.loads(json.dumps(installed["hooks"][event]))
        for group in groups:
            for handler in group["hooks"]:
                handler["url"] = f"http://127.0.0.1:{port}/{event}"
        hooks[event] = groups
    return {"hooks": hooks}


def hookd(
    box: Box, *args: str, stdin: bytes = b"", name: str = "hookd"
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [HOOKD_OF[name], *args],
        input=stdin.decode(),
        capture_output=True,
        text=True,
        cwd=box.project,
        env=box.env(),
        timeout=120,
        check=False,
    )


def session(claude: Path, box: Box, calls: int, debug: Path | None) -> tuple[float, HookTimes]:
    """Seconds from spawning ``claude -p`` to its exit, and its hooks' times (from ``debug``)."""
    with FakeAnthropic(n_tool_calls(calls)) as api:
        env = {**cli_env(box.home, api.base_url), **box.env()}
        argv = [
            str(claude), "-p", "go", "--output-format", "stream-json", "--verbose",
            "--system-prompt", "", "--model", MODEL, "--permission-mode", "default",
        ]  # fmt: skip
        if debug is not None:
            debug.unlink(missing_ok=True)
            argv += ["--debug=hooks", "--debug-file", str(debug)]  # hook lines only
        started = time.perf_counter()
        done = subprocess.run(
            argv, cwd=box.project, env=env, capture_output=True, text=True, timeout=600, check=False
        )
        elapsed = time.perf_counter() - started
    results = [m for m in map(_json, done.stdout.splitlines()) if m.get("type") == "result"]
    ok = done.returncode == 0 and results and results[-1].get("subtype") == "success"
    if not ok or len(api.message_requests) < calls + 1:
        raise SystemExit(f"a session failed ({box.root.name}): {done.stderr[-2000:]}")
    return elapsed, hook_times(debug) if debug is not None else HookTimes()


def _json(line: str) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def installed_up_command(box: Box) -> str:
    """The prompt's shim ``hookd install`` wrote (``hookd call UserPromptSubmit ... --port N``),
    which makes sure the daemon runs, then passes the prompt on."""
    settings = json.loads((box.project / ".claude" / "settings.local.json").read_text())
    for group in settings["hooks"]["UserPromptSubmit"]:
        for handler in group["hooks"]:
            if " call UserPromptSubmit " in handler.get("command", ""):
                return str(handler["command"])
    raise SystemExit("hookd install wrote no `hookd call UserPromptSubmit` command")


def up_port(command: str) -> str:
    words = command.split()
    return words[words.index("--port") + 1]


def timed(box: Box, argv: Sequence[str], n: int, stdin: bytes = b"") -> list[float]:
    """Wall milliseconds of running ``argv`` in the project, ``n`` times (each must exit 0)."""
    out = []
    for _ in range(n):
        started = time.perf_counter()
        done = subprocess.run(argv, input=stdin, capture_output=True, cwd=box.project,
                              env=box.env(), timeout=120, check=False)  # fmt: skip
        out.append((time.perf_counter() - started) * 1000)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode(errors='replace')}")
    return out


def summary(values: Sequence[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "median": statistics.median(ordered),
        "min": ordered[0],
        "max": ordered[-1],
        "p90": ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))],
    }


def measure(
    claude: Path, boxes: dict[str, Box], rounds: int, calls: int, debug: bool
) -> dict[str, Any]:
    walls: dict[str, list[float]] = {name: [] for name in CONFIGS}
    hooks: dict[str, list[HookTimes]] = {name: [] for name in CONFIGS}
    for name in HOOKD_OF:  # warm-up: page cache, the daemons' first requests
        session(claude, boxes[name], 2, None)
    for r in range(rounds):
        order = CONFIGS[r % len(CONFIGS) :] + CONFIGS[: r % len(CONFIGS)]
        for name in order:
            log_file = boxes[name].root / "debug.txt" if debug else None
            wall, times = session(claude, boxes[name], calls, log_file)
            walls[name].append(wall)
            hooks[name].append(times)
        log(f"round {r + 1}/{rounds}: " + ", ".join(f"{n} {walls[n][-1]:.2f}s" for n in CONFIGS))
    up_command = installed_up_command(boxes["hookd"])
    prompt = {**PRE_INPUT, "hook_event_name": "UserPromptSubmit", "prompt": "go"}
    up = timed(boxes["hookd"], ["/bin/sh", "-c", up_command], 20, json.dumps(prompt).encode())
    bare = timed(boxes["hookd"], ["/bin/sh", "-c", f"{sys.executable} -c pass"], 20)
    module, port = str(boxes["hookd"].project / ".claude" / "hooks.py"), up_port(up_command)
    shim = [HOOKD, "call", "PreToolUse", "--hooks", module, "--port", port]
    call = timed(boxes["hookd"], shim, 20, json.dumps(PRE_INPUT).encode())
    return {
        "rounds": rounds,
        "calls_per_session": calls,
        "debug_log": debug,
        **wall_figures(walls),
        **(hook_figures(hooks) if debug else {}),
        "target_ratio": TARGET_RATIO,
        "up_command": up_command,
        "up_already_running_ms": {**summary(up), "runs_ms": up},
        "bare_interpreter_ms": {**summary(bare), "runs_ms": bare},
        "call_round_trip_ms": {**summary(call), "runs_ms": call},
    }


def wall_figures(walls: dict[str, list[float]]) -> dict[str, Any]:
    """Sessions' wall times; what each config adds to ``none``, by medians and per round."""
    medians = {name: statistics.median(v) for name, v in walls.items()}
    added = {name: medians[name] - medians["none"] for name in CONFIGS[1:]}
    per_round = {
        name: [
            (h - n) / (c - n) if c > n else float("nan")
            for n, c, h in zip(walls["none"], walls["command"], walls[name], strict=True)
        ]
        for name in SERVED
    }
    return {
        "sessions_s": {name: {**summary(v), "runs_s": v} for name, v in walls.items()},
        "added_s": added,
        "ratio_to_command": {
            name: added[name] / added["command"] if added["command"] > 0 else float("nan")
            for name in per_round
        },
        "wall_ratio_per_round": per_round,
    }


def hook_figures(hooks: dict[str, list[HookTimes]]) -> dict[str, Any]:
    """The hooks' own time per session, from the CLI's debug log, and its ratio per round."""
    command = hooks["command"]
    ratios = {
        name: [h.total_ms / c.total_ms for h, c in zip(hooks[name], command, strict=True)]
        for name in SERVED
    }
    http = {name: [ms for t in hooks[name] for ms in t.http_ms] for name in SERVED}
    return {
        "hook_ms": {name: summary([t.total_ms for t in hooks[name]]) for name in CONFIGS[1:]},
        "http_ms_per_session": {
            name: summary([sum(t.http_ms) for t in hooks[name]]) for name in http
        },
        "http_hook_ms": {
            name: summary(v) | {"count_per_session": len(v) / len(hooks[name])}
            for name, v in http.items()
        },
        "hookd_up_ms": summary([ms for t in hooks["hookd"] for ms in t.command_ms]),
        **(
            {
                "hookd_vs_base_per_round": [
                    h.total_ms / b.total_ms
                    for h, b in zip(hooks["hookd"], hooks["hookd-base"], strict=True)
                ]
            }
            if "hookd-base" in hooks
            else {}
        ),
        "command_hook_ms": summary([ms for t in command for ms in t.command_ms]),
        "hook_ratio_per_round": ratios,
        "hook_ratio": {name: summary(v) for name, v in ratios.items()},
    }


def render(res: dict[str, Any]) -> str:
    s = res["sessions_s"]
    lines = [f"real CLI session, {res['calls_per_session']} Bash calls with PreToolUse+PostToolUse "
             f"hooks, {res['rounds']} interleaved rounds (seconds: median, min-max)"]  # fmt: skip
    for name in CONFIGS:
        added = f"  adds {res['added_s'][name]:+.2f}s" if name in res["added_s"] else ""
        one = s[name]
        lines.append(
            f"  {name:10} {one['median']:6.2f}  ({one['min']:.2f}-{one['max']:.2f}){added}"
        )
    for name in SERVED:
        ratio = res["ratio_to_command"][name]
        lines.append(f"  {name} adds {ratio:.2f}x what the command hook adds (by the medians); "
                     f"per round: {_ratios(res['wall_ratio_per_round'][name])}")  # fmt: skip
    verdict = "met" if res["ratio_to_command"]["hookd"] <= res["target_ratio"] else "NOT met"
    lines.append(f"  wall-clock target for hookd, <= {res['target_ratio']}x: {verdict}")
    if res.get("hook_ratio"):
        lines += _render_hooks(res)
    for key, label in (("up_already_running_ms", "the prompt's hookd call as installed, daemon "
                        "running"),
                       ("bare_interpreter_ms", "for comparison, sh -c 'python -c pass'"),
                       ("call_round_trip_ms", "hookd call round trip")):  # fmt: skip
        v = res[key]
        lines.append(
            f"  {label}: median {v['median']:.0f} ms, p90 {v['p90']:.0f} ms "
            f"({v['min']:.0f}-{v['max']:.0f})"
        )
    return "\n".join(lines)


def _ratios(values: Sequence[float]) -> str:
    ordered = sorted(values)
    each = " ".join(f"{v:.2f}" for v in values)
    return f"{each}  (median {statistics.median(ordered):.2f}, {ordered[0]:.2f}-{ordered[-1]:.2f})"


def _render_hooks(res: dict[str, Any]) -> list[str]:
    """The hooks' own time, as the CLI's debug log gives it."""
    ms, http, up, cmd = (res[k] for k in ("hook_ms", "http_hook_ms", "hookd_up_ms",
                                          "command_hook_ms"))  # fmt: skip
    per_session = res["http_ms_per_session"]

    def row(name: str) -> str:
        one = ms[name]
        return f"    {name:10} {one['median']:6.0f}  ({one['min']:.0f}-{one['max']:.0f})"

    def http_part(name: str) -> str:
        h = http[name]
        session_ms = per_session[name]["median"]
        return (f"{h['count_per_session']:.0f} http hooks (median {h['median']:.0f} ms, "
                f"{h['min']:.0f}-{h['max']:.0f}; {session_ms:.0f} ms per session)")  # fmt: skip

    verdict = "met" if res["hook_ratio"]["hookd"]["median"] <= res["target_ratio"] else "NOT met"
    return [
        "  hook time per session, from the CLI's debug log (ms: median, min-max):",
        f"{row('command')}  each run median {cmd['median']:.0f} ms (p90 {cmd['p90']:.0f})",
        f"{row('http-floor')}  = {http_part('http-floor')}",
        f"{row('hookd')}  = hookd call (median {up['median']:.0f} ms, at SessionStart and the "
        f"prompt) + {http_part('hookd')}",
        f"  hook-time ratio to the command hook, per round: http-floor "
        f"{_ratios(res['hook_ratio_per_round']['http-floor'])}",
        f"    hookd {_ratios(res['hook_ratio_per_round']['hookd'])} (target <= "
        f"{res['target_ratio']}: {verdict})",
        *(
            [
                f"{row('hookd-base')}  = {http_part('hookd-base')}",
                f"  hookd's hook time over hookd-base's, per round: "
                f"{_ratios(res['hookd_vs_base_per_round'])}",
            ]
            if "hookd_vs_base_per_round" in res
            else []
        ),
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cli_session", description=__doc__)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument(
        "--no-debug", dest="debug", action="store_false", help="no debug log: wall times only"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args(argv)
    claude = find_claude()
    if claude is None:
        log("the Claude Code CLI bundled with claude-agent-sdk is not installed")
        return 1
    with tempfile.TemporaryDirectory(prefix="hookd-bench-") as tmp, floor_server() as port:
        boxes = prepare(Path(tmp), port)
        try:
            res = measure(claude, boxes, args.rounds, args.calls, args.debug)
        finally:
            for name in HOOKD_OF:
                hookd(boxes[name], "down", name=name)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "cli_session.json").write_text(json.dumps(res, indent=2) + "\n")
    print(render(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
