"""What hookd's plugin costs OpenCode and pi, against no plugin: per tool call, and per run.

    .venv/bin/python -m bench.plugin_cost [ROUNDS [CALLS [RUNS]]]

``hookd install --agent opencode`` and ``--agent pi`` write the plugins into a scratch project
for ``conformance/hooks/agents_guard.py``, whose daemon is up (warm). Then, per agent:

* per call: the plugin's tool hook (``tool.execute.before``, ``tool_call``) on an allowed shell
  call, loaded by the CLI's own runtime (OpenCode's Bun through ``BUN_BE_BUN=1``, pi's jiti in
  Node), against a hook that does nothing (what a call costs with no plugin: the CLI's await
  of a handler); ROUNDS rounds of CALLS calls each, the two kinds interleaved, each round's
  median kept. Printed: the median over rounds and the spread (lowest and highest round).
* per run: the whole CLI run (three shell calls against the fake model, offline) with the
  plugin and with no plugin, interleaved, RUNS rounds after one warm-up: the medians, spread
  and ratio, and the ratio of each round's two runs (the machine's load changes less within a
  round than across rounds).
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.agents.test_shim import free_port
from tests.daemon.support import Box, hookd
from tests.support.agent_clis import agent_cli
from tests.support.opencode_drive import drive as drive_opencode
from tests.support.pi_drive import PiBox
from tests.support.pi_drive import drive as drive_pi

ROOT = Path(__file__).resolve().parents[1]
STEPS = ["echo a", "echo b", "echo c"]
#: Times ROUNDS rounds of CALLS calls of the plugin's tool hook and of a hook doing nothing.
HARNESS = """
const [plugin, rounds, calls, cwd, jitiPath] = process.argv.slice(2)
let hook
if (jitiPath) {
  const { createRequire } = await import("node:module")
  const { createJiti } = createRequire(import.meta.url)(jitiPath)
  const factory = await createJiti(import.meta.url).import(plugin, { default: true })
  const on = {}
  factory({ on: (name, fn) => { on[name] = fn }, sendUserMessage() {} })
  const ctx = { cwd, hasUI: false, model: { id: "m" }, abort() {},
    sessionManager: { getSessionId: () => "bench", getSessionFile: () => "" } }
  hook = (i) => on.tool_call({ type: "tool_call", toolName: "bash", toolCallId: `c${i}`,
    input: { command: "echo a" } }, ctx)
} else {
  const found = Object.values(await import(plugin))[0]
  const hooks = await found({ directory: cwd })
  hook = (i) => hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_bench",
    callID: `c${i}` }, { args: { command: "echo a" } })
}
const kinds = { plugin: hook, none: async () => undefined }
const out = { plugin: [], none: [] }
for (let r = 0; r < Number(rounds); r++) {
  for (const kind of r % 2 ? ["none", "plugin"] : ["plugin", "none"]) {
    const times = []
    for (let i = 0; i < Number(calls); i++) {
      const t = process.hrtime.bigint()
      const got = await kinds[kind](i)
      times.push(Number(process.hrtime.bigint() - t) / 1e6)
      if (got !== undefined) throw new Error(JSON.stringify(got))
    }
    times.sort((a, b) => a - b)
    out[kind].push(times[Math.floor(times.length / 2)])
  }
}
console.log(JSON.stringify(out))
"""


def _summary(values: list[float], unit: str, digits: int) -> str:
    low, high = min(values), max(values)
    median = statistics.median(values)
    spread = f"{low:.{digits}f}-{high:.{digits}f}"
    return f"median {median:.{digits}f} {unit} (spread {spread}, n={len(values)})"


def per_call(agent: str, plugin: Path, box: Box, rounds: int, calls: int) -> None:
    harness = box.root / "harness.mjs"
    harness.write_text(HARNESS)
    if agent == "pi":
        jiti = agent_cli("pi").resolve().parents[3] / "jiti" / "lib" / "jiti.cjs"
        argv, env = ["node", str(harness)], box.env()
        extra = [str(jiti)]
    else:
        bun = agent_cli("opencode").resolve().parents[2] / "opencode-linux-x64" / "bin" / "opencode"
        argv, env, extra = [str(bun), str(harness)], box.env(BUN_BE_BUN="1"), []
    done = subprocess.run(
        [*argv, str(plugin), str(rounds), str(calls), str(box.project), *extra],
        capture_output=True, text=True, timeout=600, check=False, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    times = json.loads(done.stdout.strip().splitlines()[-1])
    extra_ms = [p - n for p, n in zip(times["plugin"], times["none"], strict=True)]
    print(f"{agent} per call, hookd's plugin: {_summary(times['plugin'], 'ms', 2)}")
    print(f"{agent} per call, a hook doing nothing: {_summary(times['none'], 'ms', 3)}")
    print(f"{agent} per call, what the plugin adds: {_summary(extra_ms, 'ms', 2)}", flush=True)


def per_run(agent: str, box: Box, runs: int) -> None:
    plain = Box(box.root / "plain")
    plain.env()
    seconds: dict[str, list[float]] = {"plugin": [], "none": []}
    for n in range(-1, runs):  # round -1 warms the caches (jiti's transpile, Bun's), not counted
        for kind in ("plugin", "none") if n % 2 else ("none", "plugin"):
            where = box if kind == "plugin" else plain
            if agent == "pi":
                env = {**where.env(), "HOME": str(where.home)}
                got = drive_pi(STEPS, box=PiBox(where.root), env=env)
                ok, took = got.returncode == 0 and len(got.tool_results) == 3, got.seconds
            else:
                run = drive_opencode(where, agent, STEPS)
                ok, took = run.exit_code == 0 and len(run.tool_results) == 3, run.seconds
            assert ok, f"{agent} {kind} run failed"
            if n >= 0:
                seconds[kind].append(took)
            print(f"  round {n} {kind:6s} {took:.2f}s", flush=True)
    ratio = statistics.median(seconds["plugin"]) / statistics.median(seconds["none"])
    paired = [p / n for p, n in zip(seconds["plugin"], seconds["none"], strict=True)]
    print(f"{agent} per run, with hookd's plugin: {_summary(seconds['plugin'], 's', 2)}")
    print(f"{agent} per run, no plugin: {_summary(seconds['none'], 's', 2)}")
    print(f"{agent} per run, ratio of the medians: {ratio:.2f}x; per round: "
          f"{_summary(paired, 'x', 2)}", flush=True)  # fmt: skip


def main(argv: list[str]) -> int:
    rounds = int(argv[0]) if argv else 20
    calls = int(argv[1]) if len(argv) > 1 else 50
    runs = int(argv[2]) if len(argv) > 2 else 4
    with tempfile.TemporaryDirectory(prefix="plugin-cost-") as tmp:
        for agent, folder in (("opencode", ".opencode/plugins"), ("pi", ".pi/extensions")):
            box = Box(Path(tmp) / agent)
            box.env()
            module = box.project / "agents_guard.py"
            shutil.copy(ROOT / "conformance" / "hooks" / "agents_guard.py", module)
            done = hookd(box, "install", "--agent", agent, str(module), "--port", str(free_port()))
            assert done.returncode == 0, done.stderr
            (plugin,) = (box.project / folder).glob("hookd-*.ts")
            try:
                per_call(agent, plugin, box, rounds, calls)
                per_run(agent, box, runs)
            finally:
                hookd(box, "down")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
