"""The decision log through the console script: ``hookd up``'s daemon on a real socket writes
every answer; ``hookd log`` lists, filters, follows and explains them; shadow hooks; damaged
and locked stores."""

from __future__ import annotations

import json
import queue
import re
import sqlite3
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.daemon.support import HOOKD, Box, hookd, wait_for_line

WAIT_S = 30.0
MODULE = """
import hookd
from hookd import HookMatcher, add_context, deny, update_input

redact = [r"tok_[a-z0-9]{6,}"]


async def guard(input_data, tool_use_id, context):
    command = input_data["tool_input"].get("command", "")
    if "rm -rf" in command:
        return deny("no recursive deletes in this repository")
    if command.startswith("pip install "):
        return update_input({**input_data["tool_input"], "command": command + " --dry-run"})
    return None


@hookd.shadow
async def no_network(input_data, tool_use_id, context):
    if "curl" in input_data["tool_input"].get("command", ""):
        return deny("no network in this repository")
    return None


async def crashes(input_data, tool_use_id, context):
    raise RuntimeError("bug in a rule being tried")


async def rules(input_data, tool_use_id, context):
    return add_context("Run the tests before you commit.", event="UserPromptSubmit")


hooks = {
    "PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard, no_network, hookd.shadow(crashes)])],
    "UserPromptSubmit": [HookMatcher(hooks=[rules])],
}
"""


def bash(command: str, session: str = "s1") -> dict[str, Any]:
    return {
        "session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
        "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": command}, "tool_use_id": "toolu_1",
    }  # fmt: skip


PROMPT = {
    "session_id": "s2", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
    "permission_mode": "default", "hook_event_name": "UserPromptSubmit", "prompt": "hi",
}  # fmt: skip


@pytest.fixture
def hooks_file(box: Box) -> Iterator[Path]:
    target = box.project / ".claude" / "hooks.py"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(MODULE)
    yield target
    hookd(box, "down")


def call(box: Box, module: Path, data: dict[str, Any]) -> dict[str, Any]:
    """One hook call through the daemon (started if needed), as Claude Code's shim makes it."""
    event = data["hook_event_name"]
    done = hookd(box, "call", event, "--hooks", str(module), stdin=json.dumps(data).encode())
    assert done.returncode == 0, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


@contextmanager
def following(box: Box, *args: str) -> Iterator[queue.Queue[str]]:
    """``hookd log ARGS --follow``, its stdout lines on a queue."""
    proc = subprocess.Popen(
        [HOOKD, "log", *args, "--follow"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, cwd=box.project, env=box.env(),
    )  # fmt: skip
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    try:
        yield lines
    finally:
        proc.kill()
        proc.wait(timeout=10)


def records(box: Box, module: Path, n: int, *args: str) -> list[dict[str, Any]]:
    """The first ``n`` records ``hookd log --json ARGS`` gives, waiting for them to be written."""
    with following(box, str(module), "--json", "--limit", "1000", *args) as lines:
        return [json.loads(lines.get(timeout=WAIT_S)) for _ in range(n)]


def store_of(box: Box) -> Path:
    (state,) = box.daemon_dirs()
    return state / "decisions.sqlite3"


@pytest.mark.req("R-L01", "R-L02", "R-L04", "R-L07")
def test_a_deny_is_logged_and_why_explains_it(box: Box, hooks_file: Path) -> None:
    command = "rm -rf / --password hunter2 tok_abcdef99"
    answer = call(box, hooks_file, bash(command))
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    (record,) = records(box, hooks_file, 1)
    assert record["decision"] == "deny" and record["hooks"] == ["guard"]
    assert record["event"] == "PreToolUse" and record["tool"] == "Bash"
    assert record["agent"] == "claude" and record["session_id"] == "s1"
    assert record["input"]["tool_input"]["command"] == "rm -rf / --password [redacted] [redacted]"
    assert re.fullmatch(r"[0-9a-f]{12}", record["version"])
    why = hookd(box, "log", str(hooks_file), "--why")
    assert why.returncode == 0, why.stderr
    text = why.stdout
    assert f"record {record['id']}: PreToolUse Bash -> deny" in text
    assert "decided by: guard" in text
    assert "reason: no recursive deletes in this repository" in text
    assert 'input: {"command": "rm -rf / --password [redacted] [redacted]"}' in text
    assert f"module version: {record['version']}" in text
    assert "hunter2" not in text and "tok_abcdef99" not in text
    store = store_of(box)
    assert stat.S_IMODE(store.stat().st_mode) == 0o600
    raw = sqlite3.connect(store).execute("SELECT input FROM decisions").fetchone()[0]
    assert "hunter2" in raw  # stored as the hook saw it, in a private file


@pytest.mark.req("R-L02", "R-L04")
def test_filters_json_and_the_table(box: Box, hooks_file: Path) -> None:
    call(box, hooks_file, bash("ls"))
    assert call(box, hooks_file, bash("pip install x", session="s2"))["hookSpecificOutput"][
        "updatedInput"] == {"command": "pip install x --dry-run"}  # fmt: skip
    call(box, hooks_file, bash("rm -rf build", session="s2"))
    call(box, hooks_file, PROMPT)
    every = records(box, hooks_file, 4)
    assert [r["decision"] for r in every] == ["none", "rewrite", "deny", "context"]
    assert every[3]["reason"] == "Run the tests before you commit." and every[3]["tool"] is None

    def shown(*args: str) -> list[str]:
        done = hookd(box, "log", str(hooks_file), *args)
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()

    table = shown()
    assert table[0].split() == [
        "ID",
        "TIME",
        "AGENT",
        "EVENT",
        "TOOL",
        "DECISION",
        "HOOK",
        "REASON",
    ]
    assert [line.split()[5] for line in table[1:]] == ["none", "rewrite", "deny", "context"]
    assert [line.split()[5] for line in shown("--denied")[1:]] == ["deny"]
    assert [line.split()[5] for line in shown("--session", "s2")[1:]] == [
        "rewrite",
        "deny",
        "context",
    ]
    assert len(shown("--tool", "Bash")) == 4
    assert len(shown("--since", "1h")) == 5 and shown("--since", "2099-01-01T00:00") == [
        "hookd: no decisions match"]  # fmt: skip
    assert [line.split()[5] for line in shown("--limit", "1")[1:]] == ["context"]
    assert shown("--agent", "codex") == ["hookd: no decisions match"]
    lines = shown("--json", "--denied")
    assert [json.loads(line)["reason"] for line in lines] == [
        "no recursive deletes in this repository"
    ]


@pytest.mark.req("R-L04")
def test_follow_sees_a_new_record(box: Box, hooks_file: Path) -> None:
    call(box, hooks_file, bash("ls"))
    with following(box, str(hooks_file), "--json", "--limit", "1") as lines:
        assert json.loads(lines.get(timeout=WAIT_S))["decision"] == "none"
        call(box, hooks_file, bash("rm -rf x"))
        assert json.loads(lines.get(timeout=WAIT_S))["decision"] == "deny"


@pytest.mark.req("R-L08", "R-L09")
def test_a_shadow_hooks_deny_never_reaches_the_agent(box: Box, hooks_file: Path) -> None:
    assert call(box, hooks_file, bash("curl https://example.com")) == {}
    assert call(box, hooks_file, bash("ls")) == {}  # the crashing shadow hook never blocks
    shadow = records(box, hooks_file, 4, "--shadow")
    assert [(r["hooks"], r["decision"]) for r in shadow] == [
        (["no_network"], "deny"),
        (["crashes"], "deny"),
        (["crashes"], "deny"),
        (["no_network"], "none"),
    ]  # fmt: skip  (denials first)
    assert shadow[1]["failure"] == "raised" and all(r["shadow"] for r in shadow)
    main = records(box, hooks_file, 2)
    assert [r["decision"] for r in main] == ["none", "none"]
    denied = hookd(box, "log", str(hooks_file), "--shadow", "--denied").stdout.splitlines()
    assert [line.split()[6] for line in denied[1:]] == ["no_network", "crashes", "crashes"]
    why = hookd(box, "log", str(hooks_file), "--shadow", "--why").stdout
    assert "(shadow: the agent was not affected)" in why
    status = hookd(box, "status", str(hooks_file)).stdout
    assert "  decisions: none 2" in status
    assert "  shadow decisions: deny 3, none 1" in status


@pytest.mark.req("R-L06")
def test_a_damaged_store_is_moved_aside_and_answers_keep_flowing(
    box: Box, hooks_file: Path
) -> None:
    up = hookd(box, "up", str(hooks_file), "--no-decision-log")
    assert up.returncode == 0, up.stderr
    hookd(box, "down")
    store = store_of(box)
    store.write_bytes(b"garbage, not SQLite\n" * 50)
    damaged = hookd(box, "log", str(hooks_file))
    assert damaged.returncode == 1
    assert (
        damaged.stderr.startswith("hookd log: error: ") and "not a decision store" in damaged.stderr
    )
    assert len(damaged.stderr.splitlines()) == 1
    answer = call(box, hooks_file, bash("rm -rf /"))
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    log = store.with_name("daemon.log")
    line = wait_for_line(log, "decisions.store_corrupt", WAIT_S)
    assert "moved_to" in line
    (aside,) = store.parent.glob("decisions.sqlite3.corrupt-*")
    assert aside.read_bytes().startswith(b"garbage, not SQLite")
    assert records(box, hooks_file, 1)[0]["decision"] == "deny"


LOCKER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
if len(sys.argv) > 2:
    conn.execute("PRAGMA locking_mode = EXCLUSIVE")
conn.execute("BEGIN EXCLUSIVE")
conn.execute("INSERT INTO meta VALUES ('lock', 'held')")
print("locked", flush=True)
sys.stdin.readline()
"""


@contextmanager
def locked(store: Path, *how: str) -> Iterator[None]:
    proc = subprocess.Popen(
        [sys.executable, "-c", LOCKER, str(store), *how], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "locked\n"
        yield
    finally:
        assert proc.stdin is not None
        proc.stdin.write("\n")
        proc.stdin.close()
        proc.wait(timeout=10)


@pytest.mark.req("R-L06")
def test_a_locked_store_keeps_answers_flowing(box: Box, hooks_file: Path) -> None:
    call(box, hooks_file, bash("ls"))
    records(box, hooks_file, 1)
    store = store_of(box)
    with locked(store):
        answer = call(box, hooks_file, bash("rm -rf /"))
        assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
        line = wait_for_line(store.with_name("daemon.log"), "decisions.store_unavailable", WAIT_S)
        assert (
            "locked by another process" in line and '"waiting":3' in line
        )  # with its 2 shadow records
        assert call(box, hooks_file, bash("ls")) == {}
    call(box, hooks_file, bash("echo after"))
    assert [r["decision"] for r in records(box, hooks_file, 4)] == ["none", "deny", "none", "none"]
    hookd(box, "down")
    with locked(store, "exclusive"):
        done = hookd(box, "log", str(hooks_file))
    assert done.returncode == 1
    assert (
        done.stderr
        == f"hookd log: error: {store}: the decision store is locked by another process\n"
    )


@pytest.mark.req("R-L04")
def test_one_line_errors(box: Box, hooks_file: Path) -> None:
    unknown = hookd(box, "log", "no/such/hooks.py")
    assert unknown.stderr == "hookd log: error: no/such/hooks.py: no such file\n"
    none_yet = hookd(box, "log", str(hooks_file))
    assert none_yet.returncode == 1 and "no decisions recorded yet" in none_yet.stderr
    assert len(none_yet.stderr.splitlines()) == 1
    nothing = hookd(box, "log")
    assert nothing.stderr.startswith("hookd log: error: no decisions recorded yet")
    call(box, hooks_file, bash("ls"))
    records(box, hooks_file, 1)
    no_denial = hookd(box, "log", "--why")
    assert no_denial.stderr == "hookd log: error: no denial recorded\n"
    since = hookd(box, "log", "--since", "yesterday")
    assert "--since: 'yesterday' is neither" in since.stderr
