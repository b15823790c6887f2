"""The decision log's writer under a locked store holds a bounded number of bytes, and on a
full disk says so.

The real writer (:class:`hookd.engine.decisions.DecisionLog` over a real SQLite store);
the lock is a second connection holding ``BEGIN EXCLUSIVE``, the full disk a tmpfs of
256 KiB (as root), or SQLite's own SQLITE_FULL through ``max_page_count``. The writer
thread's steps are run here one by one (``_write(_drain())``), as in ``test_store``.
"""

from __future__ import annotations

import contextlib
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog

from hookd.decision.store import Store, StoreError
from hookd.engine.decisions import MAX_WAITING_BYTES, DecisionLog, row_bytes
from tests.decision.test_store import verdict

#: What a call's input holds: 100 KB of command, as in the report (2,000 of them held 198 MiB).
CALL_BYTES = 100_000


def big(i: int) -> Any:
    data = {"session_id": "s1", "tool_name": "Bash", "tool_input": {"command": "x" * CALL_BYTES}}
    return (time.time(), "PreToolUse", "claude", data, str(i), verdict({}), "v1", (), 1.0)


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Another connection holds the store's write lock (as another process would)."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN EXCLUSIVE")
    try:
        yield
    finally:
        conn.execute("ROLLBACK")
        conn.close()


def rows_in(path: Path) -> int:
    with contextlib.closing(sqlite3.connect(path)) as conn:
        return int(conn.execute("SELECT count(*) FROM decisions").fetchone()[0])


@pytest.mark.req("R-L50", "R-L06")
def test_a_locked_store_holds_at_most_max_waiting_bytes(tmp_path: Path) -> None:
    path = tmp_path / "decisions.sqlite3"
    log = DecisionLog(Store(str(path)))
    log._write([])  # the store made
    calls = 2 * MAX_WAITING_BYTES // CALL_BYTES  # twice the bound: 671 calls, 67 MB
    with structlog.testing.capture_logs() as lines, locked(path):
        for i in range(calls // 2):
            log.note(big(i))
        log._write(log._drain())
        for i in range(calls // 2, calls):
            log.note(big(i))
        log._write(log._drain())  # a second batch of the same burst
        status = log.status()
        assert status is not None
        held = sum(row_bytes(row) for row in log._waiting)
        text = sum(len(v) for row in log._waiting for v in row if isinstance(v, str))
    assert status["waiting_bytes"] == held <= MAX_WAITING_BYTES
    assert text <= MAX_WAITING_BYTES
    assert held > MAX_WAITING_BYTES - 2 * CALL_BYTES  # kept up to the bound, not fewer
    assert status["waiting"] == len(log._waiting) and status["waiting"] < calls
    assert status["dropped"] == calls - status["waiting"] == log.burst_dropped
    assert "locked by another process" in status["error"]
    events = [line["event"] for line in lines]
    assert events.count("decisions.store_unavailable") == 1
    assert events.count("decisions.records_dropped") == 1  # once per burst, not per record
    newest = [row[-2] for row in log._waiting]  # request ids: the oldest were dropped
    assert newest == [str(i) for i in range(calls - len(newest), calls)]
    with structlog.testing.capture_logs() as lines:
        log._write([])  # the lock cleared: what waited is written, its memory let go
    (recovered,) = lines
    assert recovered["event"] == "decisions.store_recovered"
    assert recovered["dropped"] == status["dropped"]
    after = log.status()
    assert after is not None and after["waiting"] == after["waiting_bytes"] == 0
    assert after["error"] is None and log.burst_dropped == 0
    log.close()
    assert rows_in(path) == status["waiting"] == log.written


def full_tmpfs(where: Path) -> bool:
    """A 256 KiB tmpfs mounted on ``where``: True when this machine lets us (root)."""
    where.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(where)],
        capture_output=True, check=False,
    )  # fmt: skip
    return done.returncode == 0


@pytest.mark.req("R-L51")
def test_a_full_disk_is_said_to_be_full(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    if not full_tmpfs(disk):
        pytest.skip("cannot mount a tmpfs here (not root); see the max_page_count test")
    try:
        log = DecisionLog(Store(str(disk / "decisions.sqlite3")))
        log._write([])
        with structlog.testing.capture_logs() as lines:
            for i in range(8):  # 800 KB into 256 KiB
                log.note(big(i))
                log._write(log._drain())
            log.close()
    finally:
        subprocess.run(["umount", str(disk)], check=False)
    assert log.error is not None and "disk full" in log.error, log.error
    assert "rollback" not in log.error and log.dropped > 0
    (line,) = [line for line in lines if line["event"] == "decisions.store_unavailable"]
    assert "disk full" in line["error"]


@pytest.mark.req("R-L51")
def test_sqlite_full_is_said_to_be_full_not_a_failed_rollback(tmp_path: Path) -> None:
    """SQLite's own SQLITE_FULL (the store's connection capped by ``max_page_count``): the
    same error a full disk gives, on any machine."""
    store = Store(str(tmp_path / "decisions.sqlite3"))
    store.open()
    assert store._conn is not None
    pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
    store._conn.execute(f"PRAGMA max_page_count = {pages + 2}")
    with pytest.raises(StoreError) as error:
        store.add(_rows(3))
    assert error.value.kind == "unusable"
    assert "disk full" in str(error.value) and "rollback" not in str(error.value)
    assert not store._conn.in_transaction
    store.close()


def _rows(n: int) -> list[tuple[Any, ...]]:
    log = DecisionLog(None)
    return [row for i in range(n) for row in log._rows(big(i))]


@pytest.mark.req("R-D74")
def test_a_store_that_is_a_link_is_never_written_through(tmp_path: Path) -> None:
    theirs = tmp_path / "another-apps.sqlite3"  # a database of the user's, not hookd's
    with contextlib.closing(sqlite3.connect(theirs)) as conn:
        conn.execute("CREATE TABLE mine (x)")
        conn.commit()
    before = theirs.read_bytes()
    link = tmp_path / "decisions.sqlite3"
    link.symlink_to(theirs)
    log = DecisionLog(Store(str(link)))
    log._write([])
    log.note(big(0))
    log._write(log._drain())
    log.close()
    assert log.error is not None and "a symbolic link" in log.error and log.dropped == 1
    assert theirs.read_bytes() == before and link.is_symlink()
