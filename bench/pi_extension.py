"""Wall time of one ``pi -p`` run (pinned pi, offline, fake model, three bash calls) with no
project extension, with a trivial one, and with ``hookd-pi.ts`` routing ``tool_call`` and
``input`` to a real daemon that is already up; the three interleaved, round after round.

    .venv/bin/python -m bench.pi_extension [ROUNDS [CALLS]]

Then CALLS ``tool_call`` handler calls straight into the extension (loaded with pi's own
jiti, outside pi): the round trip to the warm daemon an allowed bash call pays.

Each kind keeps one project folder, and a first round (not counted) fills jiti's transpile
cache (``$TMPDIR/jiti``, keyed by the extension's path): a new project pays the transpile
once, about a second for hookd-pi.ts on a loaded machine. The daemon serves
``conformance/hooks/agents_guard.py``; pi's dialect reaches it through a
``sitecustomize`` on its ``PYTHONPATH`` (it is not in hookd's table yet). Prints each run and
the median, minimum and maximum of each kind.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from hookd.agents import pi
from hookd.daemon.where import module_key, ready_file, state_dir, token_file
from tests.agents.test_shim import free_port
from tests.daemon.support import HOOKD, Box, hookd
from tests.support.agent_clis import agent_cli
from tests.support.pi_drive import PiBox, drive

ROOT = Path(__file__).resolve().parents[1]
STEPS = ["echo a", "echo b", "echo c"]
TRIVIAL = """
export default function (pi: any) {
  pi.on("tool_call", async () => undefined);
}
"""
#: Loads an extension with pi's jiti and times its tool_call handler on an allowed bash call.
CALLS_JS = """
import { createRequire } from "node:module";
const [jitiPath, extension, count] = process.argv.slice(2);
const { createJiti } = createRequire(import.meta.url)(jitiPath);
const jiti = createJiti(import.meta.url, { moduleCache: false });
const factory = await jiti.import(extension, { default: true });
const handlers = {};
factory({ on: (name, fn) => { handlers[name] = fn; }, sendUserMessage() {} });
const ctx = { cwd: process.cwd(), hasUI: false, model: { id: "m" }, abort() {},
  sessionManager: { getSessionId: () => "bench", getSessionFile: () => "" } };
const times = [];
for (let i = 0; i < Number(count); i++) {
  const event = { type: "tool_call", toolName: "bash", toolCallId: `c${i}`,
    input: { command: "echo a" } };
  const t = process.hrtime.bigint();
  const got = await handlers.tool_call(event, ctx);
  times.push(Number(process.hrtime.bigint() - t) / 1e6);
  if (got !== undefined) throw new Error(JSON.stringify(got));
}
times.sort((a, b) => a - b);
const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(2);
const least = times[0].toFixed(2);
console.log(`tool_call round trip: median ${at(0.5)} ms, p90 ${at(0.9)} ms, min ${least} ms`
  + ` (n=${times.length})`);
"""
SITECUSTOMIZE = """
from types import MappingProxyType
import hookd.agents
from hookd.agents import pi
hookd.agents.DIALECTS = MappingProxyType({**hookd.agents.DIALECTS, "pi": pi.DIALECT})
"""


def main(argv: list[str]) -> int:
    rounds = int(argv[0]) if argv else 5
    calls = int(argv[1]) if len(argv) > 1 else 200
    with tempfile.TemporaryDirectory(prefix="pi-bench-") as tmp:
        root = Path(tmp)
        box = Box(root / "hookd")
        env = box.env()
        module = box.project / "agents_guard.py"
        shutil.copy(ROOT / "conformance" / "hooks" / "agents_guard.py", module)
        (root / "site").mkdir()
        (root / "site" / "sitecustomize.py").write_text(SITECUSTOMIZE)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(root / "site"), *filter(None, [os.environ.get("PYTHONPATH")])]
        )
        port = free_port()
        up = hookd(box, "up", str(module), "--port", str(port), env=env)
        assert up.returncode == 0, up.stderr
        key = module_key(str(module.resolve()))
        guarded = pi.extension_source(
            port=port, token_file=token_file(state_dir(str(box.state / "hookd"), key)),
            ready_file=ready_file(str(box.runtime / "hookd"), key), hookd=HOOKD,
            module=str(module), routes={"tool_call": (10, True), "input": (10, True)},
        )  # fmt: skip
        kinds: dict[str, dict[str, str]] = {
            "none": {},
            "trivial": {"trivial.ts": TRIVIAL},
            "hookd-pi": {"hookd-pi.ts": guarded},
        }
        times: dict[str, list[float]] = {kind: [] for kind in kinds}
        try:
            (root / "hookd-pi.ts").write_text(guarded)
            (root / "calls.mjs").write_text(CALLS_JS)
            jiti = agent_cli("pi").resolve().parents[3] / "jiti" / "lib" / "jiti.cjs"
            done = subprocess.run(
                ["node", str(root / "calls.mjs"), str(jiti), str(root / "hookd-pi.ts"), str(calls)],
                capture_output=True, text=True, timeout=300, check=False, env=env,
            )  # fmt: skip
            print(done.stdout.strip() or done.stderr.strip(), flush=True)
            for n in range(-1, rounds):  # round -1 warms jiti's transpile cache, not counted
                for kind, extensions in kinds.items():
                    scratch = PiBox(root / kind)  # one project per kind, as a user has
                    home = {**env, "HOME": str(scratch.home)}
                    run = drive(STEPS, box=scratch, extensions=extensions, env=home)
                    assert run.returncode == 0 and len(run.tool_results) == 3, run.output
                    if n >= 0:
                        times[kind].append(run.seconds)
                    print(f"round {n} {kind:9s} {run.seconds:.3f}s", flush=True)
        finally:
            hookd(box, "down", str(module), env=env)
        for kind, seconds in [(k, v) for k, v in times.items() if v]:
            median = statistics.median(seconds)
            print(f"{kind:9s} median {median:.3f}s  min {min(seconds):.3f}s  "
                  f"max {max(seconds):.3f}s  (n={len(seconds)})")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
