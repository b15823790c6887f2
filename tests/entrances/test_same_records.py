"""The same verdict leaves the same records on every entrance.

A hook whose ``updatedInput`` holds a value JSON cannot encode (``guard_unencodable``
of ``tests/hooks/entrances.py``) is an invalid output wherever it is called: the agent
gets the failure policy's answer, and every record says ``invalid_output``: the
request log line's outcome, the per-hook stats, the decision-log row's failure, and no
quarantine record (only timeouts count). Each entrance is driven by its real interface:

* ``hook_callback`` and ``hooks/dispatch``: bytes on a pipe to ``hookd serve`` with a
  decision log and JSON log lines;
* ``http`` and ``agent`` (Codex's dialect): POSTs to ``hookd serve --http``, its
  ``GET /status`` and its decision log;
* ``kit``: :func:`hookd.testing.load`, its result and its kernel's stats.
"""

from __future__ import annotations

import http.client
import json
import os
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.cli.console import HOOKD
from tests.entrances.test_same_meaning import MODULE, ROOT, TOKEN

CALLBACK = "hook_6"  # guard_unencodable: the sixth case of tests/hooks/entrances.py
HOOK = "guard_unencodable"
POLICIES = ["block", "continue"]


def _input() -> dict[str, Any]:
    return {
        "session_id": "s-records", "transcript_path": "/tmp/t.jsonl", "cwd": str(ROOT),
        "permission_mode": "default", "hook_event_name": "PreToolUse",
        "tool_name": "Unencodable", "tool_input": {"command": "ls"},
        "tool_use_id": "toolu_records",
    }  # fmt: skip


def _env(policy: str) -> dict[str, str]:
    return {**os.environ, "ENTRANCE_POLICY": policy}


def _rows(path: Path) -> list[dict[str, Any]]:
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    try:
        return [dict(row) for row in conn.execute("SELECT * FROM decisions ORDER BY id")]
    finally:
        conn.close()


def _completed(stderr: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]
    return [line for line in lines if line.get("msg") == "request.completed"]


def _failure(policy: str) -> str:
    return "invalid_output" if policy == "continue" else "blocked:invalid_output"


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.req("R-134")
def test_stdio_records_say_invalid_output(policy: str, tmp_path: Path) -> None:
    store = tmp_path / "decisions.sqlite3"
    lines = [
        {"type": "control_request", "request_id": "init", "request": {"subtype": "initialize"}},
        {"type": "control_request", "request_id": "cb", "request": {
            "subtype": "hook_callback", "callback_id": CALLBACK, "input": _input(),
            "tool_use_id": "toolu_records"}},
        {"jsonrpc": "2.0", "id": "dp", "method": "hooks/dispatch",
         "params": {"event": "PreToolUse", "input": _input()}},
    ]  # fmt: skip
    proc = subprocess.run(
        [HOOKD, "serve", MODULE, "--decision-log", str(store), "--log-format", "json"],
        input="".join(json.dumps(line) + "\n" for line in lines),
        capture_output=True, text=True, env=_env(policy), timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    outcomes = {line["method"]: line["outcome"] for line in _completed(proc.stderr)}
    assert outcomes == {"hook_callback": _failure(policy), "hook_dispatch": _failure(policy)}
    rows = _rows(store)
    assert [(r["hooks"], r["failure"]) for r in rows] == [(HOOK, "invalid_output")] * 2
    want = "deny" if policy == "block" else "none"
    assert [r["decision"] for r in rows] == [want, want]  # never the "rewrite" it was not


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.req("R-134")
def test_http_and_agent_records_say_invalid_output(policy: str, tmp_path: Path) -> None:
    store, token, ready = tmp_path / "d.sqlite3", tmp_path / "token", tmp_path / "ready.json"
    token.write_text(TOKEN)
    argv = [HOOKD, "serve", MODULE, "--http", "127.0.0.1:0", "--token-file", str(token),
            "--ready-file", str(ready), "--log-format", "json",
            "--decision-log", str(store)]  # fmt: skip
    proc = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True, env=_env(policy))
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            if '"http.ready"' in line:
                break
        port = int(json.loads(ready.read_text())["port"])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
        for path in ("/hook/PreToolUse", "/agent/codex/PreToolUse"):
            conn.request("POST", path, json.dumps(_input()), headers)
            reply = conn.getresponse()
            reply.read()
            assert reply.status == 200
        conn.request("GET", "/status", headers=headers)
        status = json.loads(conn.getresponse().read())
        conn.close()
    finally:
        proc.terminate()
        _, rest = proc.communicate(timeout=30)
    outcomes = {line["method"]: line["outcome"] for line in _completed(rest)}
    assert outcomes == {"http": _failure(policy), "agent/codex": _failure(policy)}
    (row,) = [h for h in status["hooks"] if h["name"] == HOOK]
    assert (row["calls"], row["errors"], row["timeouts"], row["quarantined"]) == (2, 2, 0, 0), row
    rows = _rows(store)
    assert [(r["agent"], r["hooks"], r["failure"]) for r in rows] == [
        ("claude", HOOK, "invalid_output"),
        ("codex", HOOK, "invalid_output"),
    ]


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.req("R-134")
def test_kit_records_say_invalid_output(policy: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import hookd.testing

    monkeypatch.setenv("ENTRANCE_POLICY", policy)
    hooks = hookd.testing.load(MODULE)
    data = {k: v for k, v in _input().items() if k != "cwd"}
    (outcome,) = hooks.fire_sync("PreToolUse", **data).hooks
    assert outcome.outcome == _failure(policy)
    totals = hooks.kernel.stats.of_hook(CALLBACK)
    assert (totals.calls, totals.errors) == (1, 1)
