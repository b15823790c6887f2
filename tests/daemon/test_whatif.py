"""``hookd whatif`` through the console script: a daemon's real decision log (and records written
with the store's API), replayed through candidate modules in a process of their own."""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hookd.daemon.where import module_key
from hookd.decision import STORE_NAME
from hookd.decision.store import Store, rows_of
from tests.daemon.support import Box, hookd
from tests.daemon.test_decision_log import bash, call, locked, records

MODULE = """
import hookd
from hookd import HookMatcher, allow, deny


async def guard(input_data, tool_use_id, context):
    command = input_data["tool_input"].get("command", "")
    if "rm -rf" in command:
        return deny("no recursive deletes in this repository")
    if command.startswith("git status"):
        return allow("read-only git")
    return None


@hookd.shadow
async def no_network(input_data, tool_use_id, context):
    if "curl" in input_data["tool_input"].get("command", ""):
        return deny("no network in this repository")
    return None


hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard, no_network])]}
"""

CANDIDATE = """
from hookd import HookMatcher, deny

redact = [r"tok_[a-z0-9]{6,}"]


async def stricter(input_data, tool_use_id, context):
    command = input_data["tool_input"].get("command", "")
    print("a candidate that prints on stdout")
    if "rm -rf" in command:
        return deny("no recursive deletes in this repository")
    if "curl" in command or command.startswith("git "):
        return deny(f"no network or git here ({command})")
    return None


hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[stricter])]}
"""


@pytest.fixture
def logged(box: Box) -> Iterator[Path]:
    """The module installed as a daemon's, with four answers in its decision log."""
    target = box.project / ".claude" / "hooks.py"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(MODULE)
    try:
        assert call(box, target, bash("ls")) == {}
        assert call(box, target, bash("git status"))["hookSpecificOutput"][
            "permissionDecision"] == "allow"  # fmt: skip
        assert call(box, target, bash("rm -rf build"))["hookSpecificOutput"][
            "permissionDecision"] == "deny"  # fmt: skip
        assert call(box, target, bash("curl tok_abcdef99 example.com")) == {}  # a shadow deny
        records(box, target, 4)
        yield target
    finally:
        hookd(box, "down")


def store_of(box: Box, module: Path) -> Path:
    """Where the daemon of ``module`` keeps its decision log, in the box's state directory."""
    return box.state / "hookd" / "daemons" / module_key(str(module.resolve())) / STORE_NAME


def daemon_pid(box: Box) -> int:
    done = hookd(box, "status", "--json")
    assert done.returncode == 0, done.stderr
    (status,) = json.loads(done.stdout)
    pid: int = status["pid"]
    return pid


def candidate(box: Box, text: str, name: str = "candidate.py") -> Path:
    path = box.project / name
    path.write_text(text)
    return path


@pytest.mark.req("R-L10", "R-L11", "R-L12")
def test_a_stricter_candidate_is_reported_with_both_reasons(box: Box, logged: Path) -> None:
    pid = daemon_pid(box)
    before = hookd(box, "log", str(logged), "--json", "--limit", "1000").stdout
    done = hookd(box, "whatif", str(candidate(box, CANDIDATE)), str(logged))
    assert done.returncode == 3, done.stderr
    blocks = done.stdout.split("\n\n")
    assert re.fullmatch(r"record \d+: PreToolUse Bash \(claude, session s1, at [-\d: ]+\)",
                        blocks[0].splitlines()[0])  # fmt: skip
    assert blocks[0].splitlines()[1:] == [
        '  input: {"command": "git status"}',
        "  was: allow by guard: read-only git",
        "  now: deny by stricter: no network or git here (git status)",
    ]
    assert blocks[1].splitlines()[1:] == [
        '  input: {"command": "curl [redacted] example.com"}',
        "  was: none",
        "  now: deny by stricter: no network or git here (curl [redacted] example.com)",
    ]
    assert blocks[2] == "4 calls replayed, 2 changed: allow->deny 1, none->deny 1\n"
    assert "tok_abcdef99" not in done.stdout and "prints on stdout" not in done.stdout
    # the daemon was neither asked nor touched: same process, same answers, no new records
    assert daemon_pid(box) == pid
    assert hookd(box, "log", str(logged), "--json", "--limit", "1000").stdout == before
    assert call(box, logged, bash("git status"))["hookSpecificOutput"][
        "permissionDecision"] == "allow"  # fmt: skip
    assert daemon_pid(box) == pid


@pytest.mark.req("R-L11")
def test_json_gives_one_object_per_changed_call_and_a_summary(box: Box, logged: Path) -> None:
    done = hookd(box, "whatif", str(candidate(box, CANDIDATE)), str(logged), "--json")
    assert done.returncode == 3, done.stderr
    *changed, summary = [json.loads(line) for line in done.stdout.splitlines()]
    assert [c["input"]["tool_input"]["command"] for c in changed] == [
        "git status", "curl [redacted] example.com"]  # fmt: skip
    first = changed[0]
    assert first["agent"] == "claude" and first["event"] == "PreToolUse" and first["tool"] == "Bash"
    assert first["was"] == {"decision": "allow", "hooks": ["guard"], "reason": "read-only git",
                            "failure": None}  # fmt: skip
    assert first["now"]["decision"] == "deny" and first["now"]["hooks"] == ["stricter"]
    assert summary["replayed"] == 4 and summary["changed"] == 2
    assert summary["changes"] == {"allow->deny": 1, "none->deny": 1}
    assert re.fullmatch(r"[0-9a-f]{12}", summary["candidate_version"])


@pytest.mark.req("R-L10", "R-L12")
def test_the_same_module_changes_nothing(box: Box, logged: Path) -> None:
    same = box.project / "same.py"
    shutil.copy(logged, same)
    done = hookd(box, "whatif", str(same), str(logged))
    assert (done.returncode, done.stdout) == (0, "4 calls replayed, 0 changed\n"), done.stderr
    limited = hookd(box, "whatif", str(candidate(box, CANDIDATE)), str(logged), "--limit", "2")
    assert limited.returncode == 3
    assert limited.stdout.splitlines()[-1] == "2 calls replayed, 1 changed: none->deny 1"
    later = hookd(box, "whatif", str(candidate(box, CANDIDATE)), "--since", "2099-01-01")
    assert (later.returncode, later.stdout) == (0, "0 calls replayed, 0 changed\n")


@pytest.mark.req("R-L12")
def test_one_line_errors(box: Box, logged: Path) -> None:
    broken = candidate(box, "import hookd\nraise RuntimeError('half-written rule')\n", "broken.py")
    done = hookd(box, "whatif", str(broken), str(logged))
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == (f"hookd whatif: error: {broken}: import failed: RuntimeError: "
                           "half-written rule (line 2 of " f"{broken})\n")  # fmt: skip
    missing = hookd(box, "whatif", "no/such.py", str(logged))
    assert missing.stderr == "hookd whatif: error: no/such.py: no such file\n"
    other = box.project / "other.py"
    other.write_text(MODULE)
    none_yet = hookd(box, "whatif", str(broken), str(other))
    assert none_yet.returncode == 1 and len(none_yet.stderr.splitlines()) == 1
    assert "no decisions recorded yet" in none_yet.stderr
    store = store_of(box, logged)
    hookd(box, "down")
    with locked(store, "exclusive"):
        done = hookd(box, "whatif", str(broken), str(logged))
    assert done.returncode == 1
    assert done.stderr == (
        f"hookd whatif: error: {store}: the decision store is locked by another process\n"
    )
    store.write_bytes(b"garbage, not SQLite" * 100)
    for suffix in ("-wal", "-shm"):
        store.with_name(store.name + suffix).unlink(missing_ok=True)
    damaged = hookd(box, "whatif", str(broken), str(logged))
    assert damaged.returncode == 1 and "not a decision store" in damaged.stderr
    assert len(damaged.stderr.splitlines()) == 1


def _record(agent: str, event: str, data: dict[str, Any], decision: str) -> dict[str, Any]:
    return {
        "time": time.time(), "agent": agent, "session_id": data["session_id"], "event": event,
        "tool": data.get("tool_name"), "hooks": "", "decision": decision, "reason": "",
        "failure": None, "elapsed_ms": 0.4, "version": "0123456789ab", "shadow": 0,
        "request_id": "1", "input": json.dumps(data),
    }  # fmt: skip


@pytest.mark.req("R-L10")
def test_calls_of_other_agents_go_through_their_dialect(box: Box) -> None:
    module = box.project / "hooks.py"
    module.write_text(MODULE)
    store_file = store_of(box, module)
    store_file.parent.mkdir(parents=True)
    notification = {
        "session_id": "c2", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
        "hook_event_name": "Notification", "message": "waiting", "notification_type": "idle",
    }  # fmt: skip
    store = Store(str(store_file))
    store.add(rows_of([
        _record("codex", "PreToolUse", bash("curl example.com", session="c1"), "none"),
        _record("codex", "Notification", notification, "none"),
    ]))  # fmt: skip
    store.close()
    done = hookd(box, "whatif", str(candidate(box, CANDIDATE)), str(module), "--json")
    assert done.returncode == 3, done.stderr
    changed, summary = [json.loads(line) for line in done.stdout.splitlines()]
    assert changed["agent"] == "codex" and changed["now"]["decision"] == "deny"
    assert summary["replayed"] == 2 and summary["changes"] == {"none->deny": 1}
