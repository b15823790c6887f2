"""An idle daemon sleeps: no wakeups while nothing happens, a prompt ``hookd down``, a prompt
exit of ``hookd serve`` at EOF. Through the console script, against real processes."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
import time
from pathlib import Path

import pytest

from hookd.transcript import RECORD_ENV
from tests.daemon.support import HOOKD, Box, hookd, wait_for_line
from tests.daemon.test_lifecycle import PRE, free_port, pid_alive

#: Bounds of a second or so on wall-clock times: run alone, after the parallel tests.
pytestmark = pytest.mark.serial

WAIT_S = 30.0
IDLE_WINDOW_S = 5.0
#: Context switches allowed over the idle window, all threads together.
MAX_IDLE_SWITCHES = 10
#: ``hookd down`` bound: well under 0.5 s (it waited out a 5 s watcher step before).
DOWN_BOUND_S = 1.5
#: ``hookd serve`` exit after stdin EOF: well under 0.3 s when idle.
EOF_BOUND_S = 1.0

SYNC_GUARD = """
from hookd import HookMatcher, deny


def guard(input_data, tool_use_id, context):
    if "forbidden" in input_data["tool_input"].get("command", ""):
        return deny("forbidden by the sync guard")
    return None


hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard], timeout=5)]}
"""


def context_switches(pid: int) -> int:
    """Voluntary plus involuntary context switches of every thread of ``pid`` so far."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            status = (task / "status").read_text()
        except OSError:
            continue  # the thread ended meanwhile
        for line in status.splitlines():
            if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
                total += int(line.split()[1])
    return total


def start_daemon(box: Box) -> tuple[Path, int, Path]:
    """``hookd up`` of a sync guard, set up as ``hookd install`` does; module, pid, log."""
    module = box.project / ".claude" / "hooks.py"
    module.parent.mkdir(parents=True, exist_ok=True)
    module.write_text(textwrap.dedent(SYNC_GUARD))
    port = free_port()
    up = hookd(box, "up", str(module), "--port", str(port))
    assert up.returncode == 0, up.stderr
    pid = int(up.stdout.split("pid ")[1].split()[0])
    (state,) = box.daemon_dirs()
    log = state / "daemon.log"
    wait_for_line(log, "reload.watching", WAIT_S)
    assert "--reload" in Path(f"/proc/{pid}/cmdline").read_text().split("\0")
    called = hookd(box, "call", "PreToolUse", "--hooks", str(module), "--port", str(port),
                   stdin=json.dumps(PRE).encode())  # fmt: skip
    assert json.loads(called.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    return module, pid, log


@pytest.mark.req("R-D40")
def test_an_idle_daemon_does_not_wake_up(box: Box) -> None:
    _module, pid, _log = start_daemon(box)
    try:
        before = context_switches(pid)
        time.sleep(IDLE_WINDOW_S)  # the measured window, not a wait for an event
        after = context_switches(pid)
    finally:
        hookd(box, "down")
    assert after - before <= MAX_IDLE_SWITCHES, f"{after - before} context switches in 5 s idle"


@pytest.mark.req("R-D41")
def test_down_stops_the_daemon_at_once(box: Box) -> None:
    _module, pid, log = start_daemon(box)
    started = time.monotonic()
    down = hookd(box, "down")
    took = time.monotonic() - started
    assert down.stdout.startswith(f"hookd: stopped pid {pid} "), down.stdout + down.stderr
    assert not pid_alive(pid)
    assert took < DOWN_BOUND_S, f"hookd down took {took:.2f}s"
    assert "service.signal" in log.read_text()  # it ended on SIGTERM, not on the SIGKILL fallback


@pytest.mark.req("R-104")
def test_serve_exits_promptly_at_eof_with_its_log_written(tmp_path: Path) -> None:
    hooks = tmp_path / "hooks.py"
    hooks.write_text(textwrap.dedent(SYNC_GUARD))
    proc = subprocess.Popen(
        [HOOKD, "serve", str(hooks), "--log-format", "json"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={k: v for k, v in os.environ.items() if k != RECORD_ENV},
    )
    assert proc.stdin is not None and proc.stdout is not None
    init = {"type": "control_request", "request_id": "i", "request": {"subtype": "initialize"}}
    proc.stdin.write(json.dumps(init).encode() + b"\n")
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["response"]["request_id"] == "i"
    started = time.monotonic()
    proc.stdin.close()
    proc.wait(timeout=WAIT_S)
    took = time.monotonic() - started
    assert proc.stderr is not None
    stderr = proc.stderr.read().decode()
    assert proc.returncode == 0
    assert took < EOF_BOUND_S, f"exit took {took:.2f}s after EOF"
    last = json.loads(stderr.splitlines()[-1])
    assert last["msg"] == "service.stopped"  # the log's last line is out before the exit
