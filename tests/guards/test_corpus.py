"""The guard measured on labelled command lines, through the real hook path.

Each line of tests/guards/corpus/main.txt (the guard's own corpus) and heldout.txt (written
before the guard was first run on any line, never tuned against) is fired at the three-line
hooks module tests/hooks/destructive_guard.py with the testing kit, as Claude Code's
PreToolUse Bash call; the figures are the share of dangerous lines denied and of benign lines
allowed. ``python -m tests.guards.corpus`` prints them per category.
"""

from __future__ import annotations

import pytest

from tests.guards.corpus import Figures, figures, kit_denies, load

#: At least this share of the dangerous lines is denied, at most this share of benign ones.
DENIED_AT_LEAST = 0.95
FALSELY_DENIED_AT_MOST = 0.03


def _explain(found: Figures) -> str:
    misses = "\n".join(f"  {(m.dangerous and 'missed') or 'denied'}: {m.command!r}"
                       for m in found.misses)  # fmt: skip
    return f"{found.table('figures')}\n{misses}"


@pytest.mark.req("R-G10", "R-G11")
@pytest.mark.parametrize("name", ["main", "heldout"])
async def test_the_guard_meets_its_targets_on_the_corpus(name: str) -> None:
    lines = load(name)
    assert len(lines) >= (300 if name == "main" else 80)
    found = await figures(lines, kit_denies())
    assert found.denied_share() >= DENIED_AT_LEAST, _explain(found)
    assert found.false_share() <= FALSELY_DENIED_AT_MOST, _explain(found)


def test_every_category_has_both_kinds_and_each_line_appears_once() -> None:
    main, heldout = load("main"), load("heldout")
    commands = [line.command for line in main + heldout]
    assert len(commands) == len(set(commands))
    for lines in (main, heldout):
        dangerous = {line.category for line in lines if line.dangerous}
        assert dangerous >= {"deletion", "wrappers", "payloads", "git", "code"}
        assert any(not line.dangerous for line in lines)
