"""``--help`` names only what an installed hookd has: no repository paths in its examples."""

from __future__ import annotations

import pytest

from hookd.cli.main import COMMANDS
from tests.cli.console import hookd

REPOSITORY_ONLY = ("conformance/", "examples/", "tests/")


@pytest.mark.parametrize("words", [(), *((name,) for name in COMMANDS)], ids=" ".join)
def test_help_names_no_repository_path(words: tuple[str, ...]) -> None:
    proc = hookd(*words, "--help")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: hookd")
    named = [path for path in REPOSITORY_ONLY if path in proc.stdout]
    assert named == [], proc.stdout
