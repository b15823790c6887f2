"""Who the agent shim talks to: only the live daemon its ready file proves, never a program
that took the port of a daemon killed without cleaning up (its pid reused meanwhile)."""

from __future__ import annotations

import functools
import json
import os
import select
import shlex
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import trio

from tests.agents.shim_support import one_line, ready_file, run_shim, start_ticks
from tests.agents.test_agent_route import GUARD
from tests.agents.test_install_agents import FILES, HOOKS_DIR, ours, run_entry
from tests.daemon.support import Box, hookd, read_settings
from tests.serve.http.client import serve_http

#: A listener that answers "allow" (exit 0, `{}`) to everything and prints what it received;
#: it drops to the uid given (its second argument) before it binds.
FOREIGN = r"""
import os, socket, sys
port, uid = int(sys.argv[1]), int(sys.argv[2])
if uid != os.getuid():
    os.setgid(uid)
    os.setuid(uid)
sock = socket.socket()
sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
sock.bind(("127.0.0.1", port))
sock.listen()
print("listening", os.getuid(), flush=True)
while True:
    conn, _ = sock.accept()
    conn.settimeout(2)
    data = b""
    try:
        while b"\r\n\r\n" not in data and (piece := conn.recv(65536)):
            data += piece
    except OSError:
        pass
    print("received", repr(data), flush=True)
    conn.sendall(b"HTTP/1.1 200 OK\r\nx-hookd-exit: 0\r\ncontent-length: 2\r\n\r\n{}")
    conn.close()
"""
#: Another user's uid where the machine lets the test be one (root), else the test's own.
OTHER_UID = 65534 if os.geteuid() == 0 else os.getuid()
CODEX_CALL = {
    "session_id": "s1", "transcript_path": None, "cwd": "/tmp", "hook_event_name": "PreToolUse",
    "model": "m", "turn_id": "t1", "tool_name": "Bash", "tool_use_id": "c1",
    "tool_input": {"command": "rm -rf /srv/precious-tool-input"},
}  # fmt: skip


@pytest.fixture
def box(tmp_path: Path) -> Box:
    b = Box(tmp_path)
    b.env()
    return b


@pytest.fixture
def module(box: Box) -> Iterator[Path]:
    """``tests/hooks/daemon_guard.py`` as the project's ``.claude/hooks.py``; every daemon of
    the box stopped at the end."""
    target = box.project / ".claude" / "hooks.py"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(HOOKS_DIR / "daemon_guard.py", target)
    yield target
    hookd(box, "down")


@contextmanager
def foreign_listener(port: int) -> Iterator[list[str]]:
    """The program of another user on ``port``; the lines it printed, once it has ended."""
    argv = [sys.executable, "-I", "-c", FOREIGN, str(port), str(OTHER_UID)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    heard: list[str] = []
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == f"listening {OTHER_UID}\n"
        yield heard
    finally:
        proc.kill()
        out, _ = proc.communicate(timeout=10)
        heard += out.splitlines()


def kill_and_wait(pid: int) -> None:
    """SIGKILL ``pid`` (not a child of ours) and wait until it has exited."""
    pidfd = os.pidfd_open(pid)
    try:
        os.kill(pid, signal.SIGKILL)
        ready, _, _ = select.select([pidfd], [], [], 10)
        assert ready, f"pid {pid} did not exit"
    finally:
        os.close(pidfd)


@pytest.mark.req("R-A16", "R-A53", "R-A54", "R-D65", "R-D68", "R-D69")
def test_a_killed_daemons_port_held_by_another_user_gets_nothing(box: Box, module: Path) -> None:
    done = hookd(box, "install", "--agent", "codex", ".claude/hooks.py", "--no-start")
    assert done.returncode == 0, done.stderr
    command = ours(read_settings(box.project / FILES["codex"]), "PreToolUse")["command"]
    words = shlex.split(command, comments=True)
    port, ready = int(words[2]), Path(words[-1])
    assert hookd(box, "up", str(module), "--port", str(port)).returncode == 0
    left = json.loads(ready.read_text())
    assert left["start_ticks"] == start_ticks(left["pid"])  # the daemon wrote when it started
    kill_and_wait(left["pid"])  # no cleanup: its ready file stays behind
    assert json.loads(ready.read_text()) == left
    with subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                          stdin=subprocess.PIPE) as reused:  # fmt: skip
        stale = json.dumps({**left, "pid": reused.pid})  # its pid came back as this process
        with foreign_listener(port) as heard:
            ready.write_text(stale)
            call = hookd(box, "call", "PreToolUse", "--hooks", str(module), "--port", str(port),
                         stdin=json.dumps(CODEX_CALL).encode())  # fmt: skip
            ready.write_text(stale)
            by_hand = subprocess.run(
                ["bash", *words[1:6], "closed", "", "", str(ready)],
                input=json.dumps(CODEX_CALL), capture_output=True, text=True, timeout=60,
                env=box.env(), check=False,
            )  # fmt: skip
            installed = run_entry(command, CODEX_CALL, box.env())
        assert reused.poll() is None  # never signalled: not the daemon
        assert reused.stdin is not None
        reused.stdin.close()
    held = f"port {port} on 127.0.0.1 is held by another program, not this module's daemon"
    assert (installed.returncode, installed.stdout) == (2, "")
    assert one_line(installed.stderr).startswith(
        f"hookd: the hookd daemon is not running on 127.0.0.1:{port} and did not start: {held}"
    )
    assert (by_hand.returncode, by_hand.stdout) == (2, "")
    assert one_line(by_hand.stderr) == (
        f"hookd: the hookd daemon of {ready} (pid {reused.pid}) is not running; port {port} "
        "may be another program's"
    )
    assert (call.returncode, call.stdout) == (2, "")
    assert one_line(call.stderr).startswith(f"hookd call PreToolUse: blocked: {held}")
    assert heard == []  # not a connection: no token, no tool input, no "allow" obeyed


def _zombie() -> tuple[int, int, subprocess.Popen[bytes]]:
    """A child that has exited and is not reaped yet: its pid and start time, still listed."""
    child = subprocess.Popen(["true"])
    os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)
    return child.pid, start_ticks(child.pid), child


@pytest.mark.req("R-A53", "R-A54", "R-A55")
async def test_only_a_ready_file_naming_this_live_process_and_its_start_time_is_proof(
    tmp_path: Path,
) -> None:
    """A test-owned listener stands for the daemon; every ready file but the true one is
    refused before connecting, with one line saying why."""
    token = tmp_path / "token"
    token.write_text("proof-check-token-0123456789\n")
    heads: list[bytes] = []

    async def record(stream: trio.SocketStream) -> None:
        data = b""
        while b"\r\n\r\n" not in data and (piece := await stream.receive_some(65536)):
            data += piece
        heads.append(data)
        await stream.send_all(b"HTTP/1.1 200 OK\r\nx-hookd-exit: 0\r\ncontent-length: 2\r\n\r\n{}")
        await stream.aclose()

    me, mine = os.getpid(), start_ticks()
    zombie, zombie_ticks, child = _zombie()
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(
            functools.partial(trio.serve_tcp, record, 0, host="127.0.0.1")
        )
        port = listeners[0].socket.getsockname()[1]
        files = {
            "true": ready_file(tmp_path / "true.json", port, me, mine),
            "reused": ready_file(tmp_path / "reused.json", port, me, mine + 1),
            "zombie": ready_file(tmp_path / "zombie.json", port, zombie, zombie_ticks),
            "gone": ready_file(tmp_path / "gone.json", port, 2**22 + 7, mine),
            "other port": ready_file(tmp_path / "port.json", port + 1, me, mine),
            "no start": ready_file(tmp_path / "old.json", port, me, None),
        }
        if os.geteuid() == 0:
            files["not mine"] = ready_file(tmp_path / "theirs.json", port, me, mine)
            os.chown(files["not mine"], 65534, 65534)
        got = {}
        for name, path in files.items():
            got[name] = await run_shim(str(port), str(token), "codex/PreToolUse", "5", "closed",
                                       "", "", str(path), stdin=b"{}")  # fmt: skip
        nursery.cancel_scope.cancel()
    child.wait()
    assert (got["true"].returncode, got["true"].stdout) == (0, b"{}")
    assert len(heads) == 1 and b"proof-check-token" in heads[0]  # the true one's, only
    gone = "hookd: the hookd daemon of {} (pid {}) is not running; port {} may be another program's"
    expected = {
        "reused": gone.format(files["reused"], me, port),
        "zombie": gone.format(files["zombie"], zombie, port),
        "gone": gone.format(files["gone"], 2**22 + 7, port),
        "other port": f"hookd: {files['other port']} does not name this user's hookd daemon on "
        f"port {port}",
        "no start": f"hookd: {files['no start']} gives no start time for pid {me} (a daemon of an "
        "older hookd: `hookd down` stops it)",
        "not mine": f"hookd: {files.get('not mine')} does not name this user's hookd daemon on "
        f"port {port}",
    }
    for name, proc in got.items():
        if name != "true":
            assert (proc.returncode, proc.stdout) == (2, b""), name
            assert one_line(proc.stderr) == expected[name], name


def _listening_inode(port: int) -> str:
    """The socket inode of the listener on 127.0.0.1:PORT, from the kernel's table."""
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[1] == f"0100007F:{port:04X}" and fields[3] == "0A":
            return fields[9]
    raise AssertionError(f"nothing listens on 127.0.0.1:{port}")


@pytest.mark.req("R-D68")
async def test_the_daemon_names_its_start_time_and_holds_its_port_while_its_file_is_there(
    tmp_path: Path,
) -> None:
    async with serve_http(tmp_path, hooks=GUARD) as served:
        pid = served.proc.pid
        text = served.ready_file.read_text()
        assert text.startswith(f'{{"pid": {pid}, "start_ticks": {start_ticks(pid)}, ')
        assert served.ready["port"] == served.port
        inode = _listening_inode(served.port)
        fds = Path(f"/proc/{pid}/fd")
        held = [fd for fd in fds.iterdir() if os.readlink(fd) == f"socket:[{inode}]"]
        assert len(held) == 2  # the listener and the hold kept until the ready file is gone
    assert not served.ready_file.exists()
