"""A hook command's recorder: runs the command and appends the call to a JSONL file.

    python recorder.py OUT AGENT_EVENT COMMAND...

The agent CLI runs this in place of its hook command (when the tests record,
``HOOKD_RECORD_AGENTS=1``): the payload on stdin goes to COMMAND unchanged, COMMAND's stdout,
stderr and exit code come back unchanged, and one line
``{"agent_event", "payload", "exit_code", "stdout", "stderr"}`` is appended to OUT.
"""

from __future__ import annotations

import json
import subprocess
import sys

#: Longer than any hook timeout the tests configure.
COMMAND_TIMEOUT_S = 120


def main(argv: list[str]) -> int:
    out, agent_event, *command = argv
    stdin = sys.stdin.buffer.read()
    done = subprocess.run(
        command, input=stdin, capture_output=True, timeout=COMMAND_TIMEOUT_S, check=False
    )
    sys.stdout.buffer.write(done.stdout)
    sys.stderr.buffer.write(done.stderr)
    call = {
        "agent_event": agent_event,
        "payload": json.loads(stdin),
        "exit_code": done.returncode,
        "stdout": done.stdout.decode(),
        "stderr": done.stderr.decode(),
    }
    with open(out, "a", encoding="utf-8") as f:
        f.write(json.dumps(call) + "\n")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
