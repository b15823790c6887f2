"""The deadline a hook sees is the deadline enforced, on every entrance and for ``can_use_tool``.

Each hook of ``tests/hooks/deadlines.py`` reads ``context.time_left()`` at its
start and, from its own clean-up once hookd gives up on it, how far past
``context.deadline`` that clean-up ran. hookd's margin before the CLI's own
deadline is in what the hook is shown: a 1 s timeout shows 0.9 s.
"""

from __future__ import annotations

import concurrent.futures
import http.client
import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

import hookd.testing
from tests.cli.console import HOOKD
from tests.entrances.test_same_meaning import TOKEN, _daemon, _input

#: Bounds of a second or so on wall-clock times: run alone, after the parallel tests.
pytestmark = pytest.mark.serial

ROOT = Path(__file__).resolve().parents[2]
MODULE = str(ROOT / "tests" / "hooks" / "deadlines.py")

#: Scheduling slack allowed on a loaded machine; the design enforces it to the millisecond.
SLACK_S = 0.1


def _reports(log: Path) -> dict[str, dict[str, Any]]:
    return {r["kind"]: r for r in map(json.loads, log.read_text().splitlines())}


def _read_fifo(fifo: Path, count: int) -> dict[str, dict[str, Any]]:
    """``count`` reports from a FIFO each hook opens, writes and closes."""
    lines: list[str] = []
    while len(lines) < count:
        with fifo.open() as reader:  # blocks until the next hook opens it
            lines += reader.read().splitlines()
    return {r["kind"]: r for r in map(json.loads, lines)}


def _wait_for(log: Path, count: int, within_s: float = 20.0) -> None:
    """Until ``log`` holds ``count`` reports, or ``within_s`` passes (the asserts say why)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if log.exists() and len(log.read_text().splitlines()) >= count:
            return
        time.sleep(0.02)


def _check(report: dict[str, Any]) -> None:
    assert 0.9 - SLACK_S <= report["shown_left"] <= 0.9, report
    assert -0.001 <= report["late_s"] < SLACK_S, report


@pytest.mark.req("R-131")
def test_stdio_hooks_and_can_use_tool_end_at_the_deadline_they_were_shown(tmp_path: Path) -> None:
    log = tmp_path / "deadlines.fifo"
    os.mkfifo(log)
    requests = [
        {"subtype": "hook_callback", "callback_id": "hook_1", "input": _input("Waits")},
        {"subtype": "hook_callback", "callback_id": "hook_2", "input": _input("Blocks")},
        {"subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": "ls"}},
    ]
    stdin = "".join(
        json.dumps({"type": "control_request", "request_id": f"r{i}", "request": r}) + "\n"
        for i, r in enumerate(requests)
    )
    proc = subprocess.Popen(
        [HOOKD, "serve", MODULE, "--timeout", "1"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "DEADLINE_LOG": str(log)},
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(stdin)
    proc.stdin.flush()
    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # a hook's report waits for a reader
        reading = pool.submit(_read_fifo, log, len(requests))
        answers = [json.loads(proc.stdout.readline())["response"] for _ in requests]
        reports = reading.result(timeout=30)  # the thread's clean-up runs after its answer
    proc.stdin.close()
    assert proc.wait(30) == 0
    codes = {a["request_id"]: a.get("error_code") for a in answers}
    assert codes == {"r0": None, "r1": None, "r2": "hook_timeout"}  # PreToolUse: denied
    assert set(reports) == {"trio", "thread", "can_use_tool"}
    for report in reports.values():
        _check(report)


@pytest.mark.req("R-131")
def test_http_hooks_end_at_the_deadline_they_were_shown(tmp_path: Path) -> None:
    log = tmp_path / "deadlines.jsonl"
    os.environ["DEADLINE_LOG"] = str(log)  # the daemon inherits it
    try:
        with _daemon("block", tmp_path, MODULE) as (port, _):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            for case in ("Waits", "Blocks"):
                headers = {"Authorization": f"Bearer {TOKEN}"}
                conn.request("POST", "/hook/PreToolUse", json.dumps(_input(case)), headers)
                reply = conn.getresponse()
                body = json.loads(reply.read())
                assert body["hookSpecificOutput"]["permissionDecision"] == "deny"
            conn.close()
            _wait_for(log, 2)  # the thread's clean-up runs after its answer: keep the daemon up
    finally:
        del os.environ["DEADLINE_LOG"]
    reports = _reports(log)
    assert set(reports) == {"trio", "thread"}
    for report in reports.values():
        _check(report)


@pytest.mark.req("R-131")
def test_the_kit_ends_hooks_at_the_deadline_they_were_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "deadlines.jsonl"
    monkeypatch.setenv("DEADLINE_LOG", str(log))
    hooks = hookd.testing.load(MODULE, timeout=1)
    for case in ("Waits", "Blocks"):
        result = hooks.fire_sync("PreToolUse", tool_name=case, tool_input={"command": "ls"})
        assert result.decision == "deny"
    permission = hooks.ask_permission_sync("Bash", {"command": "ls"})
    assert permission.behavior == "error" and "within 0.9s" in (permission.error or "")
    reports = _reports(log)
    assert set(reports) == {"trio", "thread", "can_use_tool"}
    for report in reports.values():
        _check(report)
