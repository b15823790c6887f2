"""Run an agent's command hook and append what crossed it to a JSON Lines file.

    python record_agent_hook.py OUT.jsonl AGENT_EVENT COMMAND [ARG...]

Reads the payload on stdin, runs COMMAND with it, passes COMMAND's stdout, stderr and exit code
on unchanged, and appends one line: ``{"agent_event", "payload", "exit_code", "stdout",
"stderr"}`` (``payload`` parsed when it is JSON). A conformance recording wraps the configured
hook command with it; the agent sees the same answer as without it.
"""

from __future__ import annotations

import fcntl
import json
import subprocess
import sys
from typing import Any


def _parsed(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace")


def main(argv: list[str]) -> int:
    out, agent_event, command = argv[0], argv[1], argv[2:]
    payload = sys.stdin.buffer.read()
    done = subprocess.run(command, input=payload, capture_output=True, check=False)
    line = {
        "agent_event": agent_event,
        "payload": _parsed(payload),
        "exit_code": done.returncode,
        "stdout": done.stdout.decode("utf-8", "replace"),
        "stderr": done.stderr.decode("utf-8", "replace"),
    }
    with open(out, "a", encoding="utf-8") as f:
        fcntl.flock(f, fcntl.LOCK_EX)  # concurrent hooks append whole lines
        f.write(json.dumps(line) + "\n")
    sys.stdout.buffer.write(done.stdout)
    sys.stderr.buffer.write(done.stderr)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
