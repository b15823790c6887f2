"""The fuzz figures come after pytest's progress dots, in a section of their own."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOTS = re.compile(r"^[.sxXFE]+\s*\[\s*\d+%\]$")


def test_fuzz_figures_do_not_break_the_progress_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "tests/fuzz/test_fuzz.py", "-k", "oversize_report_does_not_depend"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    progress = next(i for i, line in enumerate(lines) if "[100%]" in line)
    assert DOTS.match(lines[progress]), lines[progress]
    figures = lines.index("fuzz: inputs tried")
    assert figures > progress and "figures" in lines[figures - 1]
