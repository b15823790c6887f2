"""Every requirement of ``protocol/SPEC.md`` is covered, and every requirement named exists.

A requirement is defined in the spec as a bold id (``**R-NNN**``, as a list item
or in a table row; a list item only once). It is covered
by a test that names it (``@pytest.mark.req(...)`` or the id anywhere in a test
file) or by a conformance transcript whose header lists it.
"""

from __future__ import annotations

import functools
import re
from collections import defaultdict
from pathlib import Path

import pytest

from hookd.transcript.format import load
from hookd.wire.errors import ErrorKind

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "protocol" / "SPEC.md"
TESTS = ROOT / "tests"
CONFORMANCE = ROOT / "conformance"

DEFINED = re.compile(r"\*\*(R-[A-Z]?\d+)\*\*")
BULLET = re.compile(r"^\s*- \*\*(R-[A-Z]?\d+)\*\*", re.MULTILINE)
NAMED = re.compile(r"\bR-[A-Z]?\d+\b")
ERROR_ROW = re.compile(r"^\| `(\w+)` \| (-\d+) \|", re.MULTILINE)

Where = dict[str, set[str]]


def defined() -> list[str]:
    """Requirement ids in the order the spec first names them in bold."""
    return list(dict.fromkeys(DEFINED.findall(SPEC.read_text(encoding="utf-8"))))


def named_in_tests() -> Where:
    where: Where = defaultdict(set)
    for path in sorted(TESTS.rglob("*.py")):
        for rid in NAMED.findall(path.read_text(encoding="utf-8")):
            where[rid].add(str(path.relative_to(ROOT)))
    return where


def named_in_transcripts() -> Where:
    where: Where = defaultdict(set)
    for path in sorted(CONFORMANCE.glob("*/*.jsonl")):
        for rid in load(path).header.requirements:
            where[rid].add(str(path.relative_to(ROOT)))
    return where


@functools.cache
def covered() -> Where:
    where: Where = defaultdict(set)
    for source in (named_in_tests(), named_in_transcripts()):
        for rid, places in source.items():
            where[rid] |= places
    return where


def test_the_spec_numbers_each_requirement_once() -> None:
    assert len(defined()) >= 40, "SPEC.md should number its requirements as **R-NNN**"
    bullets = BULLET.findall(SPEC.read_text(encoding="utf-8"))
    assert sorted(rid for rid in set(bullets) if bullets.count(rid) > 1) == []


def test_every_requirement_is_covered_by_a_test_or_a_transcript() -> None:
    uncovered = [rid for rid in defined() if rid not in covered()]
    assert uncovered == [], f"requirements no test or conformance transcript names: {uncovered}"


def test_every_named_requirement_exists() -> None:
    known = set(defined())
    unknown = {rid: sorted(places) for rid, places in covered().items() if rid not in known}
    assert unknown == {}, f"requirement ids named but not defined in SPEC.md: {unknown}"


@pytest.mark.req("R-050")
def test_the_error_table_is_unique_and_mirrored_in_the_spec() -> None:
    rows = [(kind.error_code, kind.jsonrpc_code) for kind in ErrorKind]
    assert len({code for code, _ in rows}) == len(rows)
    assert len({number for _, number in rows}) == len(rows)
    in_spec = {(code, int(number)) for code, number in ERROR_ROW.findall(SPEC.read_text())}
    assert in_spec == set(rows)
