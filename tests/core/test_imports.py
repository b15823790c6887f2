"""``import hookd`` stays light: a hooks module imports it without trio or structlog."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


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


def test_loading_hooks_and_the_initialize_answer_leave_the_catalogue_for_later() -> None:
    """The catalogue's Structs are built in the background at start-up (hookd.serve.service)."""
    code = (
        "import sys\n"
        "from hookd.core.loader import load_hooks\n"
        "from hookd.core.registry import Registry\n"
        "from hookd.serve.early import initialize_payload\n"
        "registry = Registry(default_timeout_s=30.0)\n"
        "load_hooks('examples/guard.py', registry, require_hooks=True)\n"
        "print(initialize_payload(registry)['hooks']['PreToolUse'][0]['onFailure'])\n"
        "print('hookd.events.catalogue' in sys.modules)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True, text=True, check=False, timeout=60, cwd=ROOT,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["block", "False"]


def test_the_event_table_and_the_catalogue_agree() -> None:
    from hookd.events import EVENTS
    from hookd.events.table import BLOCK_STYLE, EVENT_NAMES, MATCHER_FIELD

    assert list(EVENTS) == list(EVENT_NAMES)
    assert {name: spec.matcher_field for name, spec in EVENTS.items()} == MATCHER_FIELD
    assert {name: spec.block_style for name, spec in EVENTS.items()} == BLOCK_STYLE
