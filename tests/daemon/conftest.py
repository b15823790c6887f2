"""Fixtures of the daemon tests: a private home for each test."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.daemon.support import Box


@pytest.fixture
def box(tmp_path: Path) -> Box:
    b = Box(tmp_path)
    b.env()  # creates the directories
    return b
