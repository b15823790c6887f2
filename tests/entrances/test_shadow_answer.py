"""A shadow hook never delays the agent's answer: the answer arrives while the shadow hook is
still running (it waits for a file the test writes only after reading the answer), and the
call is noted in the decision log, with the shadow hook's would-be decision, once it ends.

Had the answer waited for the shadow hook, it would have come only at the hook's timeout,
and the record would hold that timeout instead of the hook's deny."""

from __future__ import annotations

import http.client
import json
import os
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.cli.console import HOOKD

MODULE = """
import os, time
from pathlib import Path

import hookd
from hookd import HookMatcher, deny


async def guard(input_data, tool_use_id, context):
    return None


@hookd.shadow
def watch(input_data, tool_use_id, context):
    where = Path(os.environ["SHADOW_DIR"])
    try:
        while not (where / "release").exists() and not context.cancelled:
            time.sleep(0.01)
        return deny("would stop this")
    finally:
        (where / "ended").touch()


hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard, watch], timeout=10)]}
"""
TOKEN = "shadow-token-0123456789abcdef"
WAIT_S = 30.0


def _input(session: str) -> dict[str, Any]:
    return {
        "session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
        "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "ls"}, "tool_use_id": "t1",
    }  # fmt: skip


def _shadow_rows(store: Path) -> list[tuple[Any, ...]]:
    """The shadow decisions noted so far (the store may not exist yet)."""
    if not store.exists():
        return []
    conn = sqlite3.connect(store)
    try:
        sql = "SELECT decision, reason, shadow FROM decisions WHERE shadow = 1 ORDER BY id"
        return list(conn.execute(sql))
    except sqlite3.OperationalError:  # not made yet
        return []
    finally:
        conn.close()


def _wait_for_shadow(store: Path) -> list[tuple[Any, ...]]:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        rows = _shadow_rows(store)
        if rows:
            return rows
        time.sleep(0.05)  # the log's writer gathers records for 0.2 s
    raise AssertionError("the shadow hook's record never reached the decision log")


@pytest.mark.req("R-L39")
@pytest.mark.parametrize("kind", ["hook_callback", "dispatch"])
def test_stdio_answers_before_a_slow_shadow_hook_ends(kind: str, tmp_path: Path) -> None:
    hooks = tmp_path / "hooks.py"
    hooks.write_text(MODULE)
    store = tmp_path / "decisions.sqlite3"
    env = {**os.environ, "SHADOW_DIR": str(tmp_path)}
    argv = [HOOKD, "serve", str(hooks), "--decision-log", str(store)]
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        if kind == "hook_callback":  # the CLI asks the shadow hook itself
            request = {"subtype": "hook_callback", "callback_id": "hook_2", "input": _input("s")}
            line: dict[str, Any] = {"type": "control_request", "request_id": "r1"}
            line["request"] = request | {"tool_use_id": "t1"}
        else:
            params = {"event": "PreToolUse", "input": _input("s")}
            line = {"jsonrpc": "2.0", "id": 1, "method": "hooks/dispatch", "params": params}
        proc.stdin.write(json.dumps(line) + "\n")
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())
        assert not (tmp_path / "ended").exists()  # answered with the shadow hook still running
        if kind == "hook_callback":
            assert answer["response"]["response"] == {}
        else:
            assert answer["result"]["output"] == {}
        (tmp_path / "release").touch()
        assert _wait_for_shadow(store) == [("deny", "would stop this", 1)]
    finally:
        proc.stdin.close()
        proc.wait(WAIT_S)


@pytest.mark.req("R-L39")
def test_http_answers_before_a_slow_shadow_hook_ends(tmp_path: Path) -> None:
    hooks = tmp_path / "hooks.py"
    hooks.write_text(MODULE)
    store = tmp_path / "decisions.sqlite3"
    (tmp_path / "token").write_text(TOKEN)
    ready = tmp_path / "ready.json"
    argv = [HOOKD, "serve", str(hooks), "--http", "127.0.0.1:0", "--token-file"]
    argv += [str(tmp_path / "token"), "--ready-file", str(ready), "--log-format", "json"]
    argv += ["--decision-log", str(store)]
    env = {**os.environ, "SHADOW_DIR": str(tmp_path)}
    proc = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stderr is not None
        for text in proc.stderr:  # wait for the ready line, not for a time
            if '"http.ready"' in text:
                break
        port = int(json.loads(ready.read_text())["port"])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT_S)
        headers = {"Authorization": f"Bearer {TOKEN}"}
        conn.request("POST", "/hook/PreToolUse", json.dumps(_input("s")), headers)
        reply = conn.getresponse()
        assert reply.status == 200 and json.loads(reply.read()) == {}
        conn.close()
        assert not (tmp_path / "ended").exists()  # answered with the shadow hook still running
        (tmp_path / "release").touch()
        assert _wait_for_shadow(store) == [("deny", "would stop this", 1)]
    finally:
        proc.terminate()
        proc.wait(WAIT_S)
