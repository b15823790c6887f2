"""What routing every tool and event to the daemon costs a real Claude Code session.

One project, ``bench/session_hooks.py`` installed by ``hookd install`` (its daemon shared by
both configurations), and the real CLI making N Bash calls, two ways in interleaved rounds:

* ``all``: the settings as ``hookd install`` writes them: every tool and every event the
  daemon serves is posted to it, and the daemon matches;
* ``matched``: the same entries cut down to what the module had at install time, as installs
  wrote them before: PreToolUse and PostToolUse with the matcher ``Bash`` (and the shims).

Each session's hooks are timed from the CLI's debug log (:mod:`bench.cli_debug`).

    .venv/bin/python -m bench.cli_routing [--rounds 5] [--calls 30]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.cli_session import HERE, hookd, log, session
from tests.daemon.support import Box
from tests.support.claude_cli import find_claude

KEPT = ("SessionStart", "Setup", "UserPromptSubmit", "PreToolUse", "PostToolUse")


def matched_only(installed: dict[str, Any]) -> dict[str, Any]:
    """The installed settings with only the module's events, matched on ``Bash``."""
    hooks = {e: json.loads(json.dumps(g)) for e, g in installed["hooks"].items() if e in KEPT}
    for event in ("PreToolUse", "PostToolUse"):
        hooks[event][0]["matcher"] = "Bash"
    return {**installed, "hooks": hooks}


def measure(claude: Path, box: Box, rounds: int, calls: int) -> dict[str, list[dict[str, Any]]]:
    path = box.project / ".claude" / "settings.local.json"
    installed = json.loads(path.read_text())
    configs = {"all": installed, "matched": matched_only(installed)}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in configs}
    session(claude, box, 2, None)  # warm-up
    for r in range(rounds):
        for name in list(configs)[r % 2 :] + list(configs)[: r % 2]:
            path.write_text(json.dumps(configs[name]))
            wall, times = session(claude, box, calls, box.root / "debug.txt")
            runs[name].append({"wall_s": wall, "http_ms": times.http_ms})
        done = [
            f"{n} {v[-1]['wall_s']:.2f}s, {len(v[-1]['http_ms'])} hooks" for n, v in runs.items()
        ]
        log(f"round {r + 1}/{rounds}: " + ", ".join(done))
    path.write_text(json.dumps(installed))
    return runs


def render(runs: dict[str, list[dict[str, Any]]], calls: int) -> str:
    lines = [f"real CLI session, {calls} Bash calls, {len(runs['all'])} interleaved rounds"]
    for name, rows in runs.items():
        per_session = [sum(r["http_ms"]) for r in rows]
        each = [ms for r in rows for ms in r["http_ms"]]
        lines.append(
            f"  {name:8} wall {statistics.median(r['wall_s'] for r in rows):.2f} s, "
            f"{len(rows[0]['http_ms'])} http hooks, {statistics.median(per_session):.0f} ms of "
            f"them per session (median), {statistics.median(each):.1f} ms each (median)"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cli_routing", description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=30)
    args = parser.parse_args(argv)
    claude = find_claude()
    if claude is None:
        log("the Claude Code CLI bundled with claude-agent-sdk is not installed")
        return 1
    with tempfile.TemporaryDirectory(prefix="hookd-routing-") as tmp:
        box = Box(Path(tmp) / "routing")
        box.env()
        (box.project / ".claude").mkdir()
        shutil.copy(HERE / "session_hooks.py", box.project / ".claude" / "hooks.py")
        if hookd(box, "install", ".claude/hooks.py").returncode != 0:
            raise SystemExit("hookd install failed")
        try:
            runs = measure(claude, box, args.rounds, args.calls)
        finally:
            hookd(box, "down")
    print(render(runs, args.calls))
    return 0


if __name__ == "__main__":
    sys.exit(main())
