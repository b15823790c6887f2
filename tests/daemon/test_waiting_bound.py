"""A real daemon whose decision store another connection keeps locked: large calls keep being
answered, the records waiting stay under their byte bound, and what was dropped is shown in
``hookd status`` and said once in the log; once the lock clears, nothing waits any more."""

from __future__ import annotations

import contextlib
import http.client
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hookd.engine.decisions import MAX_WAITING_BYTES
from tests.daemon.support import Box, hookd, wait_for_line
from tests.daemon.test_decision_log import bash, following

WAIT_S = 60.0
CALL_BYTES = 100_000


def status(box: Box) -> dict[str, Any]:
    done = hookd(box, "status", "--json")
    assert done.returncode == 0, done.stderr
    (found,) = json.loads(done.stdout)
    assert isinstance(found, dict)
    return found


@contextlib.contextmanager
def connection(box: Box) -> Iterator[http.client.HTTPConnection]:
    conn = http.client.HTTPConnection("127.0.0.1", status(box)["port"], timeout=WAIT_S)
    try:
        yield conn
    finally:
        conn.close()


def post(conn: http.client.HTTPConnection, box: Box, i: int) -> dict[str, Any]:
    body = json.dumps(bash(f"echo {i} " + "x" * CALL_BYTES)).encode()
    headers = {"Authorization": f"Bearer {box.token()}", "Content-Type": "application/json"}
    conn.request("POST", "/hook/PreToolUse", body, headers)
    reply = conn.getresponse()
    assert reply.status == 200
    answer: dict[str, Any] = json.loads(reply.read())
    return answer


@pytest.mark.req("R-L50")
def test_a_locked_store_drops_past_the_byte_bound_and_says_so_once(box: Box, module: Path) -> None:
    assert hookd(box, "up", str(module)).returncode == 0
    (state,) = box.daemon_dirs()
    store, log = state / "decisions.sqlite3", state / "daemon.log"
    locker = sqlite3.connect(store, isolation_level=None)
    locker.execute("BEGIN EXCLUSIVE")
    calls = MAX_WAITING_BYTES // CALL_BYTES + 100  # past the bound by 10 MB
    with connection(box) as conn:
        for i in range(calls):
            assert post(conn, box, i) == {}  # answers never wait for the store
        wait_for_line(log, "decisions.records_dropped", WAIT_S)
        held = status(box)["decision_log"]
        assert 0 < held["waiting_bytes"] <= held["max_waiting_bytes"] == MAX_WAITING_BYTES
        assert held["dropped"] > 0 and "locked by another process" in held["error"]
        shown = hookd(box, "status").stdout
        assert "locked by another process" in shown and "dropped)" in shown
        locker.execute("ROLLBACK")
        locker.close()
        post(conn, box, calls)  # the next batch finds the store free
        recovered = wait_for_line(log, "decisions.store_recovered", WAIT_S)
    with following(box, str(module), "--json", "--limit", "1") as written:
        while f"echo {calls} " not in written.get(timeout=WAIT_S):
            pass  # until the last call's record is in the store
    after = status(box)["decision_log"]
    assert after["waiting"] == after["waiting_bytes"] == 0 and after["error"] is None
    assert f'"dropped":{after["dropped"]}' in recovered
    assert after["written"] + after["dropped"] == calls + 1
    assert f"{after['dropped']} records dropped" in hookd(box, "status").stdout
    lines = log.read_text().splitlines()
    assert sum("decisions.records_dropped" in line for line in lines) == 1
