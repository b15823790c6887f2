"""A command hook wrapped for recording: ``python hook_recorder.py LOG AGENT_EVENT COMMAND...``.

Runs COMMAND with the hook's stdin, hands its stdout, stderr and exit code back to the agent
unchanged, and appends the exchange to LOG as one JSON line: ``{"agent_event", "payload" (the
JSON the agent wrote), "exit_code", "stdout", "stderr"}`` (an agent transcript's line).
"""

from __future__ import annotations

import json
import subprocess
import sys

#: Longer than any deadline the shim is given, shorter than the agent's own hook timeout.
_TIMEOUT_S = 58


def main(argv: list[str]) -> int:
    log, agent_event, *command = argv
    payload = sys.stdin.buffer.read()
    done = subprocess.run(
        command, input=payload, capture_output=True, timeout=_TIMEOUT_S, check=False
    )
    line = {
        "agent_event": agent_event,
        "payload": json.loads(payload),
        "exit_code": done.returncode,
        "stdout": done.stdout.decode(),
        "stderr": done.stderr.decode(),
    }
    with open(log, "a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")
    sys.stdout.buffer.write(done.stdout)
    sys.stderr.buffer.write(done.stderr)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
