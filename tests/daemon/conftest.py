"""Fixtures of the daemon tests: a private home for each test."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.daemon.support import Box, hookd

HOOKS_DIR = Path(__file__).resolve().parents[1] / "hooks"


@pytest.fixture
def box(tmp_path: Path) -> Box:
    b = Box(tmp_path)
    b.env()  # creates the directories
    return b


@pytest.fixture
def module(box: Box) -> Iterator[Path]:
    """``tests/hooks/daemon_guard.py`` as the project's ``.claude/hooks.py``; every daemon of
    the box is stopped at the end."""
    target = box.project / ".claude" / "hooks.py"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(HOOKS_DIR / "daemon_guard.py", target)
    yield target
    hookd(box, "down")
