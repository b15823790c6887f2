"""``hookd up`` / ``status`` / ``down`` and hot reload, through the console script, against
real daemons in a private home."""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.daemon.support import Box, hookd, wait_for_line

HOOKS_DIR = Path(__file__).resolve().parents[1] / "hooks"
WAIT_S = 30.0
PRE = {
    "session_id": "s1",
    "transcript_path": "/tmp/t.jsonl",
    "cwd": "/tmp",
    "permission_mode": "default",
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "echo forbidden"},
    "tool_use_id": "toolu_1",
}


@pytest.fixture
def module(box: Box) -> Iterator[Path]:
    target = box.project / ".claude" / "hooks.py"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(HOOKS_DIR / "daemon_guard.py", target)
    yield target
    hookd(box, "down")


def free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    try:
        for sock in socks:
            sock.bind(("127.0.0.1", 0))
        return [int(sock.getsockname()[1]) for sock in socks]
    finally:
        for sock in socks:
            sock.close()


def free_port() -> int:
    return free_ports(1)[0]


def ready_file(box: Box) -> Path:
    (ready,) = (box.runtime / "hookd").glob("*.json")
    return ready


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "Z" not in _proc_state(pid)


def _proc_state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return "Z"


def call_pre(box: Box, module: Path, port: int) -> dict[str, object]:
    done = hookd(
        box, "call", "PreToolUse", "--hooks", str(module), "--port", str(port),
        stdin=json.dumps(PRE).encode(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert isinstance(answer, dict)
    return answer


@pytest.mark.req("R-D23", "R-D24")
def test_up_status_down(box: Box, module: Path) -> None:
    port = free_port()
    first = hookd(box, "up", str(module), "--port", str(port))
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("hookd: started: pid ")
    info = json.loads(ready_file(box).read_text())
    assert info["port"] == port and info["module"] == str(module)
    again = hookd(box, "up", str(module), "--port", str(port))
    assert again.stdout.startswith(f"hookd: already running: pid {info['pid']} ")
    answer = call_pre(box, module, port)
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"  # type: ignore[index]
    status = _status_once_decided(box)
    lines = status.stdout.splitlines()
    assert lines[0] == str(module)
    assert lines[1].startswith(f"  pid {info['pid']}, 127.0.0.1:{port}, up ")
    assert lines[3] == "  reload error: none"
    assert lines[4].split() == ["ID", "EVENT", "NAME", "CALLS", "ERRORS", "TIMEOUTS", "STUCK",
                                "P50", "MS", "P99", "MS"]  # fmt: skip
    guard = next(line.split() for line in lines[5:] if " guard " in line)
    assert guard[:7] == ["hook_1", "PreToolUse", "guard", "1", "0", "0", "0"]
    assert lines[-2].startswith("  claude: 1 calls, 1 denials, 0 errors, 0 timeouts, p50 ")
    assert lines[-1] == "  decisions: deny 1"  # counted as the decision log writes them
    down = hookd(box, "down", str(module))
    assert down.stdout == f"hookd: stopped pid {info['pid']} serving {module}\n"
    assert not pid_alive(info["pid"])
    assert not ready_file_exists(box)
    none = hookd(box, "status", str(module))
    assert none.returncode == 3 and "no daemon is running" in none.stdout


def ready_file_exists(box: Box) -> bool:
    return any((box.runtime / "hookd").glob("*.json"))


@pytest.mark.req("R-D25")
def test_state_files_are_private(box: Box, module: Path) -> None:
    assert hookd(box, "install", ".claude/hooks.py").returncode == 0
    (state,) = box.daemon_dirs()
    for path in (state / "token", state / "daemon.log", state / "install.json", ready_file(box)):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    for directory in (state, box.runtime / "hookd"):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700, directory


@pytest.mark.req("R-D26")
def test_stale_files_are_replaced(box: Box, module: Path) -> None:
    port = free_port()
    assert hookd(box, "up", str(module), "--port", str(port)).returncode == 0
    ready = ready_file(box)
    info = json.loads(ready.read_text())
    stale = {**info, "pid": 2**22 + 12345}  # no such process
    assert hookd(box, "down").returncode == 0
    ready.write_text(json.dumps(stale))
    assert "no daemon was running" in hookd(box, "down").stdout
    assert not ready.exists()
    ready.write_text(json.dumps(stale))
    up = hookd(box, "up", str(module), "--port", str(port))
    assert up.returncode == 0 and up.stdout.startswith("hookd: started: pid ")
    assert json.loads(ready.read_text())["pid"] != stale["pid"]


@pytest.mark.req("R-D27")
def test_a_port_taken_by_another_program_is_a_clear_error(box: Box, module: Path) -> None:
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        port = squatter.getsockname()[1]
        done = hookd(box, "up", str(module), "--port", str(port))
    assert done.returncode == 2
    assert done.stderr == (
        f"hookd up: error: port {port} on 127.0.0.1 is held by another program, not this "
        "module's daemon (it cannot prove the module's key); stop that program, or move with "
        "`hookd install HOOKS --port N`\n"
    )


@pytest.mark.req("R-D28")
def test_a_changed_token_restarts_the_daemon(box: Box, module: Path) -> None:
    port = free_port()
    assert hookd(box, "up", str(module), "--port", str(port)).returncode == 0
    old = json.loads(ready_file(box).read_text())["pid"]
    (box.daemon_dirs()[0] / "token").write_text("a-new-token\n")
    up = hookd(box, "up", str(module), "--port", str(port))
    assert up.stdout.startswith("hookd: started: pid ")
    assert json.loads(ready_file(box).read_text())["pid"] != old
    assert not pid_alive(old)


@pytest.mark.req("R-D29")
def test_idle_exit(box: Box, module: Path) -> None:
    done = hookd(box, "up", str(module), "--port", str(free_port()), "--idle-exit", "0.5")
    assert done.returncode == 0, done.stderr
    pid = int(done.stdout.split("pid ")[1].split()[0])
    wait_gone(box, pid)


def wait_gone(box: Box, pid: int) -> None:
    """Wait (on file-system events) until the daemon removed its ready file and exited."""
    from watchfiles import watch

    deadline = time.monotonic() + WAIT_S
    for _ in watch(box.runtime / "hookd", rust_timeout=200, yield_on_timeout=True,
                   debounce=10, step=10):  # fmt: skip
        if not ready_file_exists(box) and not pid_alive(pid):
            return
        assert time.monotonic() < deadline, "the idle daemon did not exit"


@pytest.mark.req("R-D31")
def test_a_module_that_fails_to_reload_keeps_the_previous_one(box: Box, module: Path) -> None:
    port = free_port()
    assert hookd(box, "up", str(module), "--port", str(port)).returncode == 0
    (state,) = box.daemon_dirs()
    log = state / "daemon.log"
    wait_for_line(log, "reload.watching", WAIT_S)
    module.write_text("raise RuntimeError('half-edited')\n")
    failed = wait_for_line(log, "reload.failed", WAIT_S)
    assert "half-edited" in failed
    answer = call_pre(box, module, port)  # the previous hooks still answer
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"  # type: ignore[index]
    status = hookd(box, "status", str(module)).stdout
    assert "reload error: " in status and "half-edited" in status
    shutil.copy(HOOKS_DIR / "daemon_reload_v1.py", module)
    wait_for_line(log, "reload.done", WAIT_S)
    answer = call_pre(box, module, port)
    assert answer["hookSpecificOutput"]["permissionDecision"] == "allow"  # type: ignore[index]
    assert "reload error: none" in hookd(box, "status", str(module)).stdout


@pytest.mark.req("R-D23")
def test_one_daemon_per_module(box: Box, module: Path) -> None:
    other = box.project / "other_hooks.py"
    shutil.copy(HOOKS_DIR / "daemon_reload_v1.py", other)
    ports = free_ports(2)
    for path, port in zip((module, other), ports, strict=True):
        assert hookd(box, "up", str(path), "--port", str(port)).returncode == 0
    status = hookd(box, "status").stdout
    assert str(module) in status and str(other) in status
    down = hookd(box, "down")
    assert down.stdout.count("hookd: stopped pid") == 2
    assert not ready_file_exists(box)


def _status_once_decided(box: Box, within_s: float = 20.0) -> subprocess.CompletedProcess[str]:
    """``hookd status`` once the decision log has counted the call (its writer gathers for
    0.2 s first), or the last one seen when ``within_s`` passes (the asserts then say why)."""
    deadline = time.monotonic() + within_s
    while True:
        status = hookd(box, "status")
        assert status.returncode == 0, status.stderr
        if "decisions: deny" in status.stdout or time.monotonic() > deadline:
            return status
        time.sleep(0.05)
