"""The command shim an agent's config calls: stdin to the daemon's agent route, the answer
back as stdout or stderr and an exit code; exit 2 whenever no usable answer comes."""

from __future__ import annotations

import functools
import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from hookd.agents import SHIM
from tests.agents.test_agent_route import DENIED, GUARD
from tests.daemon.support import SQUATTER
from tests.serve.http.client import serve_http


async def shim(*args: str, stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    with trio.fail_after(10):
        return await trio.run_process(
            ["bash", SHIM, *args], stdin=stdin, capture_stdout=True, capture_stderr=True,
            check=False,
        )  # fmt: skip


def one_line(proc: subprocess.CompletedProcess[bytes]) -> str:
    (line,) = proc.stderr.decode().splitlines()
    return line


def payload(raw: dict[str, Any]) -> bytes:
    return json.dumps(raw).encode()


@pytest.mark.req("R-A08")
async def test_the_shim_gives_each_agent_the_daemons_answer(tmp_path: Path) -> None:
    async with serve_http(tmp_path, hooks=GUARD) as served:
        port, token = str(served.port), str(tmp_path / "token")
        for agent, event, body, expected in DENIED:
            denied = await shim(port, token, f"{agent}/{event}", stdin=payload(body))
            assert (denied.returncode, denied.stderr) == (0, b"")
            assert json.loads(denied.stdout) == expected
            harmless = payload(body).replace(b"rm -rf build", b"pwd")
            quiet = await shim(port, token, f"{agent}/{event}", stdin=harmless)
            assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, b"", b"")
        garbage = await shim(port, token, "gemini/BeforeTool", stdin=b"{not json")
        assert (garbage.returncode, garbage.stdout) == (2, b"")
        assert one_line(garbage).startswith("hookd could not check this Gemini CLI call")
        refused = await shim(port, token, "cursor/PreToolUse", stdin=b"{}")
        assert refused.returncode == 2
        assert (
            one_line(refused) == "hookd: the hookd daemon refused the call: HTTP/1.1 404 Not Found"
        )
        (tmp_path / "wrong").write_text("wrong-token\n")
        wrong = await shim(port, str(tmp_path / "wrong"), "codex/PreToolUse", stdin=b"{}")
        assert wrong.returncode == 2
        assert "401" in one_line(wrong)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


@pytest.mark.req("R-A08")
async def test_no_daemon_or_no_token_fails_closed(tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("some-token\n")
    down = await shim(str(free_port()), str(token), "codex/PreToolUse", stdin=b"{}")
    assert (down.returncode, down.stdout) == (2, b"")
    assert one_line(down).startswith("hookd: the hookd daemon is not running on 127.0.0.1:")
    lenient = await shim(str(free_port()), str(token), "codex/PostToolUse", "5", "open", stdin=b"")
    assert lenient.returncode == 1  # an event that blocks nothing: shown, not obeyed
    missing = await shim("1", str(tmp_path / "none"), "codex/PreToolUse", stdin=b"{}")
    assert missing.returncode == 2
    assert one_line(missing) == f"hookd: cannot read the daemon's token from {tmp_path / 'none'}"


async def _fake_daemon(answer: bytes | None, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
    """Accepts connections; sends ``answer`` after the request head, or nothing at all."""
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")

    async def serve(stream: trio.SocketStream) -> None:
        data = b""
        while b"\r\n\r\n" not in data:
            data += await stream.receive_some(65536)
        if answer is None:
            await trio.sleep_forever()
        await stream.send_all(answer)
        await stream.aclose()

    await trio.serve_listeners(serve, listeners, task_status=task_status)


@pytest.mark.req("R-A08")
@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (None, "hookd: no answer from the hookd daemon within 0.3s"),
        (b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello",
         "hookd: the hookd daemon answered garbage (no exit code)"),
        (b"HTTP/1.1 200 OK\r\nx-hookd-exit: 7\r\n\r\n",
         "hookd: the hookd daemon answered garbage (no exit code)"),
        (b"SSH-2.0-OpenSSH\r\n", "hookd: the hookd daemon refused the call: SSH-2.0-OpenSSH"),
    ],
)  # fmt: skip
async def test_silence_and_garbage_fail_closed(
    tmp_path: Path, answer: bytes | None, expected: str
) -> None:
    token = tmp_path / "token"
    token.write_text("some-token\n")
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(_fake_daemon, answer)
        port = str(listeners[0].socket.getsockname()[1])
        got = await shim(port, str(token), "gemini/BeforeTool", "0.3", stdin=b"{}")
        nursery.cancel_scope.cancel()
    assert (got.returncode, got.stdout) == (2, b"")
    assert one_line(got) == expected


def _command_lines() -> list[bytes]:
    lines = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                lines.append((entry / "cmdline").read_bytes())
            except OSError:  # gone meanwhile
                continue
    return lines


@pytest.mark.req("R-A08")
async def test_the_token_is_on_no_command_line(tmp_path: Path) -> None:
    token = "shim-secret-0123456789abcdef"
    (tmp_path / "token").write_text(token + "\n")
    heads: list[bytes] = []
    arrived = trio.Event()

    async def hold(stream: trio.SocketStream) -> None:
        data = b""
        while b"\r\n\r\n" not in data:
            data += await stream.receive_some(65536)
        heads.append(data)
        arrived.set()
        await trio.sleep_forever()  # the shim waits for its answer meanwhile

    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(
            functools.partial(trio.serve_tcp, hold, 0, host="127.0.0.1")
        )
        port = str(listeners[0].socket.getsockname()[1])
        proc = await trio.lowlevel.open_process(
            ["bash", SHIM, port, str(tmp_path / "token"), "codex/PreToolUse", "30"],
            stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        with trio.fail_after(10):
            await arrived.wait()
        assert f"Authorization: Bearer {token}".encode() in heads[0]  # it was sent
        assert not [line for line in _command_lines() if token.encode() in line]
        proc.kill()
        await proc.wait()
        nursery.cancel_scope.cancel()


def _tcp_table(port: int, uid: int) -> str:
    """/proc/net/tcp as the kernel writes it: a header, then a LISTEN line on 127.0.0.1:PORT."""
    return (
        "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
        "timeout inode\n"
        f"   0: 0100007F:{port:04X} 00000000:0000 0A 00000000:00000000 00:00000000 00000000 "
        f"{uid:>5}        0 4242 1 0000000000000000 100 0 0 10 0\n"
    )


@pytest.mark.req("R-A16")
async def test_a_port_listed_as_another_users_gets_no_token(tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("owner-check-token-0123456789\n")
    net = tmp_path / "net"
    net.mkdir()
    heads: list[bytes] = []

    async def record(stream: trio.SocketStream) -> None:
        data = b""
        while b"\r\n\r\n" not in data:
            piece = await stream.receive_some(65536)
            if not piece:
                break
            data += piece
        heads.append(data)
        await stream.aclose()

    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(
            functools.partial(trio.serve_tcp, record, 0, host="127.0.0.1")
        )
        port = listeners[0].socket.getsockname()[1]
        (net / "tcp").write_text(_tcp_table(port, 4242))
        with trio.fail_after(10):
            got = await trio.run_process(
                ["bash", SHIM, str(port), str(token), "codex/PreToolUse", "5"], stdin=b"{}",
                capture_stdout=True, capture_stderr=True, check=False,
                env={**os.environ, "HOOKD_PROC_NET": str(net)},
            )  # fmt: skip
            (net / "tcp").write_text(_tcp_table(port, os.getuid()))
            mine = await trio.run_process(
                ["bash", SHIM, str(port), str(token), "codex/PreToolUse", "5"], stdin=b"{}",
                capture_stdout=True, capture_stderr=True, check=False,
                env={**os.environ, "HOOKD_PROC_NET": str(net)},
            )  # fmt: skip
        nursery.cancel_scope.cancel()
    assert (got.returncode, got.stdout) == (2, b"")
    assert one_line(got) == (
        f"hookd: port {port} is held by another user's program (uid 4242), not the hookd daemon"
    )
    assert mine.returncode == 2  # asked, then refused: the fake answered nothing
    assert sorted(b"owner-check-token" in h for h in heads) == [False, True]  # the 2nd run only
    assert b"" in heads


@pytest.mark.req("R-A16")
@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                    reason="needs root and setpriv to listen as another user")  # fmt: skip
def test_a_real_listener_of_another_user_gets_no_token(tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("owner-check-token-0123456789\n")
    token.chmod(0o600)
    port = free_port()
    squatter = subprocess.Popen(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
         sys.executable, "-c", SQUATTER, str(port)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert squatter.stdout is not None
        assert squatter.stdout.readline() == "listening\n"
        got = subprocess.run(
            ["bash", SHIM, str(port), str(token), "gemini/BeforeTool", "5"], input=b"{}",
            capture_output=True, timeout=30, check=False,
        )  # fmt: skip
    finally:
        squatter.kill()
        out, _ = squatter.communicate(timeout=10)
    assert (got.returncode, got.stdout) == (2, b"")
    assert one_line(got) == (
        f"hookd: port {port} is held by another user's program (uid 65534), not the hookd daemon"
    )
    assert "request" not in out  # it never heard from the shim


@pytest.mark.req("R-A16")
async def test_the_daemons_ready_file_settles_who_listens_without_the_socket_tables(
    tmp_path: Path,
) -> None:
    """A ready file of this user naming the port and a live process of this user is the
    daemon's: the socket tables (here saying another user listens) are not read. A ready
    file whose process is gone is no proof: the tables decide."""
    token = tmp_path / "token"
    token.write_text("ready-check-token-0123456789\n")
    net = tmp_path / "net"
    net.mkdir()
    heads: list[bytes] = []

    async def record(stream: trio.SocketStream) -> None:
        data = b""
        while b"\r\n\r\n" not in data:
            piece = await stream.receive_some(65536)
            if not piece:
                break
            data += piece
        heads.append(data)
        await stream.aclose()

    async def shim(ready: Path) -> subprocess.CompletedProcess[bytes]:
        argv = ["bash", SHIM, str(port), str(token), "codex/PreToolUse", "5", "closed",
                "hookd-not-needed", "module-not-needed", str(ready)]  # fmt: skip
        return await trio.run_process(
            argv, stdin=b"{}", capture_stdout=True, capture_stderr=True, check=False,
            env={**os.environ, "HOOKD_PROC_NET": str(net)},
        )  # fmt: skip

    gone = subprocess.run(["true"], check=True)  # a pid that no longer runs
    assert gone.returncode == 0
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(
            functools.partial(trio.serve_tcp, record, 0, host="127.0.0.1")
        )
        port = listeners[0].socket.getsockname()[1]
        (net / "tcp").write_text(_tcp_table(port, 4242))
        live, dead = tmp_path / "live.json", tmp_path / "dead.json"
        live.write_text(json.dumps({"pid": os.getpid(), "host": "127.0.0.1", "port": port}))
        dead.write_text(json.dumps({"pid": 2**22 + 1, "host": "127.0.0.1", "port": port}))
        with trio.fail_after(10):
            trusted = await shim(live)
            refused = await shim(dead)
        nursery.cancel_scope.cancel()
    assert trusted.returncode == 2  # sent, then no answer from the fake
    assert heads[0].count(b"ready-check-token") == 1
    assert heads[1:] == [b""]  # the second connected, then sent nothing
    assert one_line(refused) == (
        f"hookd: port {port} is held by another user's program (uid 4242), not the hookd daemon"
    )
