"""The benchmark's contenders run as scripts from bench/, so bench/ is first on their sys.path."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_no_bench_module_shadows_the_standard_library() -> None:
    names = {path.stem for path in BENCH.glob("*.py")}
    assert "floor" in names  # the folder is the one the contenders run from
    assert names & sys.stdlib_module_names == set()
