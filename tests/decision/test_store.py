"""The decision store and its writer: bounded by size and age, damaged or locked files, and
what an output decides."""

from __future__ import annotations

import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from hookd.core.policy import Answer
from hookd.core.registry import Registry
from hookd.decision.meaning import decision_of, failure_word
from hookd.decision.store import COLUMNS, Store, StoreError, open_reader, rows_of
from hookd.engine.decisions import DecisionLog
from hookd.engine.verdict import Ran, Verdict


def synthetic(n: int, start: int = 0, when: float | None = None) -> list[tuple[Any, ...]]:
    now = time.time() if when is None else when
    return rows_of(
        {
            "time": now, "agent": "claude", "session_id": f"s{i % 7}", "event": "PreToolUse",
            "tool": "Bash", "hooks": "guard", "decision": "deny" if i % 3 == 0 else "none",
            "reason": "no", "elapsed_ms": 0.1, "version": "v1", "shadow": 0,
            "request_id": str(i), "input": f'{{"tool_input": {{"command": "ls -la {i}"}}}}',
        }
        for i in range(start, start + n)
    )  # fmt: skip


def ids(path: Path) -> tuple[int, int, int]:
    conn = sqlite3.connect(path)
    try:
        low, high, count = conn.execute(
            "SELECT min(id), max(id), count(*) FROM decisions"
        ).fetchone()
    finally:
        conn.close()
    return int(low), int(high), int(count)


@pytest.mark.req("R-L03")
def test_a_hundred_thousand_records_stay_under_the_size_cap(tmp_path: Path) -> None:
    path = tmp_path / "decisions.sqlite3"
    cap = 2 * 1024 * 1024
    store = Store(str(path), max_bytes=cap)
    started = time.perf_counter()
    for start in range(0, 100_000, 1000):
        store.add(synthetic(1000, start))
    store.close()
    took = time.perf_counter() - started
    size = sum(p.stat().st_size for p in tmp_path.glob("decisions.sqlite3*"))
    assert size <= cap, size
    low, high, count = ids(path)
    assert high == 100_000 and low > 50_000  # the oldest went first
    assert count == high - low + 1 and count > 1000
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert took < 60, took


@pytest.mark.req("R-L03")
def test_records_past_their_age_are_dropped(tmp_path: Path) -> None:
    path = tmp_path / "d.sqlite3"
    store = Store(str(path), max_age_s=3600)
    store.add(synthetic(10, when=time.time() - 7200))
    store.close()
    store = Store(str(path), max_age_s=3600)
    store.add(synthetic(5, start=10))
    store.close()
    assert ids(path)[2] == 5


def verdict(output: dict[str, Any], name: str = "guard") -> Verdict:
    registry = Registry()

    async def guard(input_data: Any, tool_use_id: Any, context: Any) -> None:
        return None

    guard.__qualname__ = name
    reg = registry.add("PreToolUse", guard, matcher="Bash")
    return Verdict("PreToolUse", [Ran(reg, Answer("ok", output, event="PreToolUse"), 1.0)], output)


def noted(output: dict[str, Any]) -> Any:
    data = {"session_id": "s1", "tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}
    return (time.time(), "PreToolUse", "claude", data, "r1", verdict(output), "v1", (), 2.0)


DENY = {"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "no"}}


@pytest.mark.req("R-L06")
def test_a_damaged_store_is_moved_aside_and_a_new_one_made(tmp_path: Path) -> None:
    path = tmp_path / "decisions.sqlite3"
    path.write_bytes(b"this is not a database\n" * 100)
    log = DecisionLog(Store(str(path)))
    log.start()
    log.note(noted(DENY))
    log.close()
    (aside,) = tmp_path.glob("decisions.sqlite3.corrupt-*")
    assert aside.read_bytes().startswith(b"this is not a database")
    assert ids(path)[2] == 1
    assert log.counts == {"deny": 1} and log.dropped == 0
    with pytest.raises(StoreError) as error:
        open_reader(str(aside))
    assert error.value.kind == "corrupt"


LOCKER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.readline()
"""


@pytest.mark.req("R-L06")
def test_a_locked_store_keeps_records_waiting_then_writes_them(tmp_path: Path) -> None:
    path = tmp_path / "decisions.sqlite3"
    log = DecisionLog(Store(str(path)))
    log._write([])  # the writer thread's steps, run here one by one
    locker = subprocess.Popen(
        [sys.executable, "-c", LOCKER, str(path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert locker.stdout is not None and locker.stdout.readline() == "locked\n"
        log._write(log._rows(noted(DENY)))
        assert log.error is not None and "locked by another process" in log.error
        assert len(log._waiting) == 1 and log.dropped == 0
    finally:
        assert locker.stdin is not None
        locker.stdin.write("\n")
        locker.stdin.close()
        locker.wait(timeout=10)
    log._write(log._rows(noted({})))
    log.close()
    assert ids(path)[2] == 2  # the waiting record and the new one
    assert log.error is None and log.written == 2


def test_past_the_waiting_bound_the_oldest_records_are_dropped_and_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hookd.engine import decisions

    monkeypatch.setattr(decisions, "MAX_WAITING", 3)
    log = DecisionLog(Store(str(tmp_path / "d.sqlite3")))
    log._failed(StoreError("locked", "locked"), synthetic(5))  # type: ignore[arg-type]
    assert len(log._waiting) == 3 and log.dropped == 2


@pytest.mark.req("R-L01")
@pytest.mark.parametrize(
    ("output", "decision", "reason"),
    [
        ({}, "none", ""),
        (DENY, "deny", "no"),
        ({"decision": "block", "reason": "tests first"}, "deny", "tests first"),
        ({"continue": False, "stopReason": "stop"}, "deny", "stop"),
        ({"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "sure?"}},
         "ask", "sure?"),
        ({"hookSpecificOutput": {"permissionDecision": "allow"}}, "allow", ""),
        ({"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"c": 1}}},
         "rewrite", ""),
        ({"hookSpecificOutput": {"additionalContext": "run the tests"}}, "context",
         "run the tests"),
        ({"hookSpecificOutput": {"decision": {"behavior": "deny", "message": "m"}}}, "deny", "m"),
        ({"behavior": "allow", "updatedInput": {"x": 1}}, "rewrite", ""),
        ({"systemMessage": "note"}, "none", ""),
    ],
)  # fmt: skip
def test_what_an_output_decides(output: dict[str, Any], decision: str, reason: str) -> None:
    assert decision_of(output) == (decision, reason)


def test_failure_words() -> None:
    assert [failure_word(o) for o in ("ok", "exception", "blocked:timeout", "invalid_output")] == [
        None, "raised", "timed_out", "invalid_output",
    ]  # fmt: skip


def test_columns_keep_what_a_later_replay_needs() -> None:
    assert {"event", "agent", "input", "version", "time"} <= set(COLUMNS)
