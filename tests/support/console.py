"""The installed ``hookd`` console script, run as a user runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

__all__ = ["HOOKD", "hookd_command", "run_console"]

#: The console script installed beside the interpreter running the tests.
HOOKD = Path(sys.executable).parent / "hookd"


def hookd_command() -> str:
    assert HOOKD.is_file() and os.access(HOOKD, os.X_OK), f"no console script at {HOOKD}"
    return str(HOOKD)


def run_console(
    *args: str, cwd: Path | None = None, timeout: float = 60, input: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``hookd ARGS`` to completion, output captured as text."""
    return subprocess.run(
        [hookd_command(), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
        input=input,
        check=False,
    )
