"""Run the installed ``hookd`` console script, as a user would from a shell."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: The console script installed next to this interpreter.
HOOKD = str(Path(sys.executable).with_name("hookd"))


def hookd(
    *args: str,
    stdin: str = "",
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """``hookd ARGS`` with ``stdin`` as its input; its output, never raising on failure."""
    return subprocess.run(
        [HOOKD, *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        timeout=timeout,
        check=False,
    )


def module(path: Path, source: str) -> str:
    """Write a hooks module (dedented) to ``path``; its path as a string."""
    path.write_text(textwrap.dedent(source))
    return str(path)


def lines(*messages: Any) -> str:
    """Protocol lines for a process's stdin."""
    return "".join(json.dumps(m) + "\n" for m in messages)


def answers(stdout: str) -> dict[str, Any]:
    """The control responses on ``stdout`` by request id."""
    found = {}
    for line in stdout.splitlines():
        msg = json.loads(line)
        found[msg["response"]["request_id"]] = msg["response"]
    return found


def one_line_error(proc: subprocess.CompletedProcess[str], command: str) -> str:
    """The single ``hookd COMMAND: error: ...`` line of a failed run (asserted so)."""
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if ": error: " in line]
    assert len(errors) == 1, proc.stderr
    assert errors[0].startswith(f"hookd {command}: error: "), proc.stderr
    return errors[0]
