"""``hookd serve`` over a pipe keeps a decision log when asked (``--decision-log [FILE]``), and
``--shadow`` makes a whole module's hooks shadow hooks."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.cli.console import answers, hookd, lines, module

GUARD = """
from hookd import HookMatcher, deny


async def guard(input_data, tool_use_id, context):
    if "rm -rf" in input_data["tool_input"].get("command", ""):
        return deny("no recursive deletes")
    return None


hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard])]}
"""


def callback(request_id: str, command: str) -> dict[str, Any]:
    return {
        "type": "control_request",
        "request_id": request_id,
        "request": {
            "subtype": "hook_callback",
            "callback_id": "hook_1",
            "input": {
                "session_id": "s9", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
                "hook_event_name": "PreToolUse", "tool_name": "Bash",
                "tool_input": {"command": command}, "tool_use_id": "t1",
            },
            "tool_use_id": "t1",
        },
    }  # fmt: skip


def stored(path: Path) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(path)
    try:
        sql = "SELECT decision, hooks, reason, shadow, event, session_id FROM decisions ORDER BY id"
        return list(conn.execute(sql))
    finally:
        conn.close()


@pytest.mark.req("R-L05")
def test_serve_over_a_pipe_logs_each_answer(tmp_path: Path) -> None:
    hooks = module(tmp_path / "hooks.py", GUARD)
    store = tmp_path / "decisions.sqlite3"
    sent = lines(callback("a", "ls"), callback("b", "rm -rf /"))
    done = hookd("serve", hooks, "--decision-log", str(store), stdin=sent)
    assert done.returncode == 0, done.stderr
    got = answers(done.stdout)
    decision = got["b"]["response"]["hookSpecificOutput"]["permissionDecision"]
    assert got["a"]["response"] == {} and decision == "deny"
    assert stored(store) == [
        ("none", "", "", 0, "PreToolUse", "s9"),
        ("deny", "guard", "no recursive deletes", 0, "PreToolUse", "s9"),
    ]


@pytest.mark.req("R-L05", "R-L08")
def test_serve_shadow_answers_nothing_and_hookd_log_reads_the_modules_store(
    tmp_path: Path,
) -> None:
    hooks = module(tmp_path / "hooks.py", GUARD)
    env = {"XDG_STATE_HOME": str(tmp_path / "state"), "XDG_RUNTIME_DIR": str(tmp_path / "run")}
    (tmp_path / "run").mkdir(mode=0o700)
    sent = lines(callback("b", "rm -rf /"))
    done = hookd("serve", hooks, "--shadow", "--decision-log", stdin=sent, env=env)
    assert done.returncode == 0, done.stderr
    assert answers(done.stdout)["b"]["response"] == {}  # the agent sees no decision
    shown = hookd("log", hooks, "--shadow", "--json", env=env)
    assert shown.returncode == 0, shown.stderr
    (record,) = [json.loads(line) for line in shown.stdout.splitlines()]
    assert record["decision"] == "deny" and record["hooks"] == ["guard"] and record["shadow"]
    main = hookd("log", hooks, "--json", env=env)
    assert [json.loads(line)["decision"] for line in main.stdout.splitlines()] == ["none"]


def test_without_the_option_serve_keeps_no_log(tmp_path: Path) -> None:
    hooks = module(tmp_path / "hooks.py", GUARD)
    done = hookd("serve", hooks, stdin=lines(callback("a", "ls")))
    assert done.returncode == 0 and not list(tmp_path.glob("*.sqlite3"))
