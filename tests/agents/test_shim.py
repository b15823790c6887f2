"""The command shim an agent's config calls: stdin to the daemon's agent route, the answer
back as stdout or stderr and an exit code; exit 2 whenever no usable answer comes."""

from __future__ import annotations

import functools
import json
import os
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest
import trio

from hookd.agents import SHIM
from tests.agents.shim_support import one_line as stderr_line
from tests.agents.shim_support import ready_file, run_shim, start_ticks
from tests.agents.test_agent_route import DENIED, GUARD
from tests.serve.http.client import serve_http


async def shim(*args: str, stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return await run_shim(*args, stdin=stdin)


def one_line(proc: subprocess.CompletedProcess[bytes]) -> str:
    return stderr_line(proc.stderr)


def payload(raw: dict[str, Any]) -> bytes:
    return json.dumps(raw).encode()


@pytest.mark.req("R-A08", "R-A53")
async def test_the_shim_gives_each_agent_the_daemons_answer(tmp_path: Path) -> None:
    async with serve_http(tmp_path, hooks=GUARD) as served:
        port, token = str(served.port), str(tmp_path / "token")

        async def ask(target: str, body: bytes, token: str = token) -> Any:
            # a hand-wired entry: no hookd to start the daemon, its ready file the proof
            return await shim(port, token, target, "55", "closed", "", "", str(served.ready_file),
                              stdin=body)  # fmt: skip

        for agent, event, body, expected in DENIED:
            denied = await ask(f"{agent}/{event}", payload(body))
            assert (denied.returncode, denied.stderr) == (0, b"")
            assert json.loads(denied.stdout) == expected
            quiet = await ask(f"{agent}/{event}", payload(body).replace(b"rm -rf build", b"pwd"))
            assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, b"", b"")
        garbage = await ask("gemini/BeforeTool", b"{not json")
        assert (garbage.returncode, garbage.stdout) == (2, b"")
        assert one_line(garbage).startswith("hookd could not check this Gemini CLI call")
        refused = await ask("cursor/PreToolUse", b"{}")
        assert refused.returncode == 2
        assert (
            one_line(refused) == "hookd: the hookd daemon refused the call: HTTP/1.1 404 Not Found"
        )
        (tmp_path / "wrong").write_text("wrong-token\n")
        wrong = await ask("codex/PreToolUse", b"{}", str(tmp_path / "wrong"))
        assert wrong.returncode == 2
        assert "401" in one_line(wrong)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


@pytest.mark.req("R-A08", "R-A54")
async def test_no_daemon_or_no_token_fails_closed(tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("some-token\n")
    port = str(free_port())
    gone = str(tmp_path / "ready.json")  # the daemon removed it at exit
    down = await shim(port, str(token), "codex/PreToolUse", "5", "closed", "", "", gone,
                      stdin=b"{}")  # fmt: skip
    assert (down.returncode, down.stdout) == (2, b"")
    assert one_line(down) == f"hookd: the hookd daemon is not running on 127.0.0.1:{port}"
    unnamed = await shim(port, str(token), "codex/PreToolUse", stdin=b"{}")
    assert unnamed.returncode == 2
    assert one_line(unnamed) == f"hookd: no ready file names the hookd daemon on 127.0.0.1:{port}"
    lenient = await shim(port, str(token), "codex/PostToolUse", "5", "open", stdin=b"")
    assert lenient.returncode == 1  # an event that blocks nothing: shown, not obeyed
    passing = await shim(port, str(token), "copilot/postToolUse", "5", "pass", stdin=b"")
    assert (passing.returncode, passing.stdout) == (0, b"")  # Copilot denies on any non-zero
    assert one_line(passing).startswith("hookd: no ready file names")
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


@pytest.mark.req("R-A08", "R-A57")
@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (None, "hookd: no answer from the hookd daemon within 0.3s"),
        (b"", "hookd: the hookd daemon closed the connection without an answer"),
        (b"HTTP/1.1 200 OK\r\nx-hookd-exit: 0\r\n\r\n{}",
         "hookd: the hookd daemon answered garbage (no Content-Length)"),
        (b"HTTP/1.1 200 OK\r\nx-hookd-exit: 0\r\ncontent-len",
         "hookd: the hookd daemon's answer ended inside its head"),
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
        port = listeners[0].socket.getsockname()[1]
        ready = ready_file(tmp_path / "ready.json", port, os.getpid(), start_ticks())
        got = await shim(str(port), str(token), "gemini/BeforeTool", "0.3", "closed", "", "",
                         str(ready), stdin=b"{}")  # fmt: skip
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
        port = listeners[0].socket.getsockname()[1]
        ready = ready_file(tmp_path / "ready.json", port, os.getpid(), start_ticks())
        proc = await trio.lowlevel.open_process(
            ["bash", SHIM, str(port), str(tmp_path / "token"), "codex/PreToolUse", "30",
             "closed", "", "", str(ready)],
            stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        with trio.fail_after(10):
            await arrived.wait()
        assert f"Authorization: Bearer {token}".encode() in heads[0]  # it was sent
        assert not [line for line in _command_lines() if token.encode() in line]
        proc.kill()
        await proc.wait()
        nursery.cancel_scope.cancel()
