"""A user's project in a temporary folder, tested by a separate pytest process."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

__all__ = ["run_pytest", "write"]

PYTEST_TIMEOUT_S = 120


def write(folder: Path, files: dict[str, str]) -> None:
    """Write ``files`` (name -> text, dedented) into ``folder``."""
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())


def run_pytest(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m pytest ARGS`` in ``folder``, as the project's own test run."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=PYTEST_TIMEOUT_S,
        env=env,
        check=False,
    )
