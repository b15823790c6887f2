"""``import hookd`` stays light: a hooks module imports it without trio or structlog."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize("module", ["hookd", "hookd.core.loader", "hookd.events"])
def test_a_fresh_interpreter_imports_without_trio_or_structlog(module: str) -> None:
    code = (
        f"import sys, {module}; "
        "print([m for m in ('trio', 'structlog', 'jsonschema') if m in sys.modules])"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
