"""Hot reload of the installed daemon: helper modules reload with the hooks file, an import
that never finishes is refused under a deadline, and ``hookd down`` works meanwhile.
Through the console script, against real daemons."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import textwrap
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.daemon.support import HOOKD, Box, hookd, wait_for_line
from tests.daemon.test_lifecycle import PRE, free_port, pid_alive

#: Bounds of a second or so on wall-clock times: run alone, after the parallel tests.
pytestmark = pytest.mark.serial

WAIT_S = 30.0
DOWN_BOUND_S = 1.5

GUARD = """
from hookd import HookMatcher, deny

from policy import BLOCKED


def guard(input_data, tool_use_id, context):
    if BLOCKED in input_data["tool_input"].get("command", ""):
        return deny(f"{BLOCKED} is blocked")
    return None


hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard], timeout=5)]}
"""
STUCK = """
while True:
    pass
"""


def write(path: Path, source: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source))


def wait_for_count(path: Path, needle: str, count: int, timeout_s: float) -> None:
    """Wait (on file-system events) until ``count`` lines of ``path`` contain ``needle``."""
    from watchfiles import watch

    def seen() -> int:
        return sum(needle in line for line in path.read_text(errors="replace").splitlines())

    deadline = time.monotonic() + timeout_s
    if seen() >= count:
        return
    for _ in watch(path.parent, debounce=10, step=10, rust_timeout=200, yield_on_timeout=True):
        if seen() >= count:
            return
        assert time.monotonic() < deadline, f"fewer than {count} {needle!r} lines in {path}"


def children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


@pytest.fixture
def guard(box: Box) -> Iterator[Path]:
    module = box.project / ".claude" / "hooks.py"
    write(module, GUARD)
    write(module.parent / "policy.py", 'BLOCKED = "forbidden"\n')
    yield module
    hookd(box, "down")


def up(box: Box, module: Path) -> tuple[int, int, Path]:
    """Start the module's daemon as ``hookd install`` sets it up; its pid, port and log."""
    port = free_port()
    done = hookd(box, "up", str(module), "--port", str(port))
    assert done.returncode == 0, done.stderr
    (state,) = box.daemon_dirs()
    log = state / "daemon.log"
    wait_for_line(log, "reload.watching", WAIT_S)
    return int(done.stdout.split("pid ")[1].split()[0]), port, log


def decision(box: Box, module: Path, port: int, command: str) -> str | None:
    data = {**PRE, "tool_input": {"command": command}}
    done = hookd(box, "call", "PreToolUse", "--hooks", str(module), "--port", str(port),
                 stdin=json.dumps(data).encode())  # fmt: skip
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout) if done.stdout.strip() else {}
    found = answer.get("hookSpecificOutput", {}).get("permissionDecision")
    return found if isinstance(found, str) else None


@pytest.mark.req("R-D43")
def test_editing_a_helper_module_reloads_the_guard(box: Box, guard: Path) -> None:
    _pid, port, log = up(box, guard)
    assert decision(box, guard, port, "echo forbidden") == "deny"
    write(guard.parent / "policy.py", 'BLOCKED = "rm -rf /"\n')
    wait_for_count(log, "reload.done", 1, WAIT_S)
    assert decision(box, guard, port, "echo forbidden") is None
    assert decision(box, guard, port, "rm -rf /") == "deny"
    os.utime(guard)  # touching the hooks file reloads too
    wait_for_count(log, "reload.done", 2, WAIT_S)
    assert decision(box, guard, port, "rm -rf /") == "deny"


TOKEN = "a-test-token"


def get_status(port: int) -> dict[str, Any]:
    return _json(urllib.request.Request(f"http://127.0.0.1:{port}/status"))


def post_pre(port: int, command: str) -> dict[str, Any]:
    body = json.dumps({**PRE, "tool_input": {"command": command}}).encode()
    return _json(urllib.request.Request(f"http://127.0.0.1:{port}/hook/PreToolUse", data=body))


def _json(request: urllib.request.Request) -> dict[str, Any]:
    request.add_header("Authorization", f"Bearer {TOKEN}")
    with urllib.request.urlopen(request, timeout=WAIT_S) as reply:
        found = json.loads(reply.read())
    assert isinstance(found, dict)
    return found


@contextmanager
def served(box: Box, guard: Path, reload_timeout_s: int) -> Iterator[tuple[int, int, Path]]:
    """``hookd serve GUARD --http ... --reload --reload-timeout N``; its pid, port and log.
    Stopped with SIGTERM at the end, which it must obey within the bound."""
    token = box.root / "token"
    token.write_text(TOKEN + "\n")
    ready = box.runtime / "ready.json"
    log = box.root / "serve.log"
    with log.open("wb") as sink:
        daemon = subprocess.Popen(
            [HOOKD, "serve", str(guard), "--http", "127.0.0.1:0", "--reload",
             "--reload-timeout", str(reload_timeout_s), "--token-file", str(token),
             "--ready-file", str(ready), "--log-format", "json"],
            cwd=guard.parent, env=box.env(), stdin=subprocess.DEVNULL, stdout=sink, stderr=sink,
        )  # fmt: skip
    try:
        wait_for_line(log, "reload.watching", WAIT_S)
        wait_for_line(log, "http.ready", WAIT_S)
        yield daemon.pid, json.loads(ready.read_text())["port"], log
    finally:
        daemon.send_signal(signal.SIGTERM)
        started = time.monotonic()
        assert daemon.wait(timeout=WAIT_S) == 0
        took = time.monotonic() - started
        assert took < DOWN_BOUND_S, f"SIGTERM took {took:.2f}s"


@pytest.mark.req("R-D42")
def test_an_import_that_never_finishes_is_refused_then_the_fix_is_served(
    box: Box, guard: Path
) -> None:
    with served(box, guard, 2) as (pid, port, log):
        write(guard, STUCK)
        failed = wait_for_line(log, "reload.failed", WAIT_S)
        assert "did not finish within 2s" in failed
        status = get_status(port)
        assert "did not finish within 2s" in status["reload_error"]
        assert status["loaded"] is True
        assert children(pid) == []  # the busy check process is gone
        reason = post_pre(port, "echo forbidden")["hookSpecificOutput"]["permissionDecisionReason"]
        assert reason.endswith("forbidden is blocked")  # the previous version serves meanwhile
        write(guard, GUARD.replace("is blocked", "is blocked (fixed)"))
        saved = time.monotonic()
        wait_for_line(log, "reload.done", WAIT_S)
        assert time.monotonic() - saved < WAIT_S
        assert get_status(port)["reload_error"] is None
        reason = post_pre(port, "echo forbidden")["hookSpecificOutput"]["permissionDecisionReason"]
        assert reason.endswith("forbidden is blocked (fixed)")


@pytest.mark.req("R-D42", "R-D41")
def test_a_load_stuck_in_the_daemon_is_reported_and_sigterm_still_works(
    box: Box, guard: Path
) -> None:
    only_in_the_daemon = GUARD + "\nimport sys\n\nwhile 'check' not in sys.argv:\n    pass\n"
    with served(box, guard, 1) as (_pid, port, log):
        write(guard, only_in_the_daemon)
        failed = wait_for_line(log, "reload.failed", WAIT_S)
        assert "loading in the daemon did not finish within 1s" in failed
        assert "did not finish" in get_status(port)["reload_error"]
        assert "hookSpecificOutput" in post_pre(port, "echo forbidden")  # still answering


@pytest.mark.req("R-D42", "R-D41")
def test_down_works_while_a_reload_is_stuck(box: Box, guard: Path) -> None:
    pid, _port, log = up(box, guard)
    write(guard, STUCK)
    checking = json.loads(wait_for_line(log, "reload.checking", WAIT_S))
    assert checking["pid"] in children(pid)
    started = time.monotonic()
    down = hookd(box, "down")
    took = time.monotonic() - started
    assert down.stdout.startswith(f"hookd: stopped pid {pid} "), down.stdout + down.stderr
    assert took < DOWN_BOUND_S, f"hookd down took {took:.2f}s"
    assert not pid_alive(pid)
    assert not pid_alive(checking["pid"])  # the busy check process went with it


def _said(answer: dict[str, Any]) -> str:
    said = answer.get("systemMessage")
    return said if isinstance(said, str) else ""


@pytest.mark.req("R-D44")
def test_a_failed_save_is_said_once_in_each_session(box: Box, guard: Path) -> None:
    with served(box, guard, 5) as (_pid, port, log):
        assert _said(post_pre(port, "ls")) == ""
        write(guard, GUARD + "\ndef broken(:\n")
        wait_for_line(log, "reload.failed", WAIT_S)
        first = post_pre(port, "echo forbidden")
        assert first["hookSpecificOutput"]["permissionDecision"] == "deny"  # the old version
        said = _said(first)
        assert said.startswith("hookd: the last save did not load"), first
        assert f"{guard}:15: syntax error" in said
        assert _said(post_pre(port, "ls")) == ""  # once per session
        other = json.dumps({**PRE, "session_id": "another", "tool_input": {"command": "ls"}})
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/hook/PreToolUse", data=other.encode()
        )
        assert "did not load" in _said(_json(request))  # each session is told
        write(guard, GUARD)
        wait_for_line(log, "reload.done", WAIT_S)
        assert _said(post_pre(port, "ls")) == ""


TWO = """
from hookd import HookMatcher

def first(input_data, tool_use_id, context):
    return None

def second(input_data, tool_use_id, context):
    return None

hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[HOOKS])]}
"""


def _rows(box: Box, module: Path) -> dict[str, tuple[str, int]]:
    done = hookd(box, "status", str(module), "--json")
    assert done.returncode == 0, done.stderr
    (status,) = json.loads(done.stdout)  # one object per daemon
    return {row["name"]: (row["callback_id"], row["calls"]) for row in status["hooks"]}


@pytest.mark.req("R-D80")
def test_status_figures_follow_the_hook_across_a_reload(box: Box) -> None:
    module = box.project / ".claude" / "hooks.py"
    write(module, TWO.replace("HOOKS", "first, second"))
    try:
        _, port, log = up(box, module)
        for _ in range(3):
            decision(box, module, port, "ls")
        assert _rows(box, module) == {"first": ("hook_1", 3), "second": ("hook_2", 3)}
        module.write_text(textwrap.dedent(TWO.replace("HOOKS", "second")))  # first removed
        wait_for_count(log, "reload.done", 1, WAIT_S)
        decision(box, module, port, "ls")
        assert _rows(box, module) == {"second": ("hook_1", 4)}  # its own, under its new id
        module.write_text(textwrap.dedent(TWO.replace("HOOKS", "first, second")))
        wait_for_count(log, "reload.done", 2, WAIT_S)
        assert _rows(box, module) == {"first": ("hook_1", 0), "second": ("hook_2", 4)}
    finally:
        hookd(box, "down")
