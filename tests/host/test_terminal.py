"""``input()`` in a callback: the user's terminal under ``hookd run``, a clear error elsewhere.

The terminal is a pseudo-terminal made the controlling terminal of ``hookd run``
(a new session); the user's answer is typed into it before the question comes,
as the terminal's line discipline keeps it until read.
"""

from __future__ import annotations

import os
import pty
import sys
from pathlib import Path

import pytest

from tests.peer import hook_request, hookd_process, payload
from tests.support.fake_anthropic import FakeAnthropic, run_tool_then_done
from tests.support.host_run import HostRun, bare_cli, run_hookd

#: Makes fd N the controlling terminal of this (new) session, then runs the command.
TAKE_TERMINAL = (
    "import fcntl, os, sys, termios; "
    "fcntl.ioctl(int(sys.argv[1]), termios.TIOCSCTTY, 0); os.execvp(sys.argv[2], sys.argv[2:])"
)


async def run_touch(claude: Path, tmp_path: Path, target: Path, *, typed: bytes | None) -> HostRun:
    """``touch TARGET`` under host_terminal.py; with ``typed``, on a terminal holding that input."""
    with FakeAnthropic(run_tool_then_done([f"touch {target}"])) as api:
        if typed is None:
            return await run_hookd(
                "host_terminal.py",
                bare_cli(claude),
                api,
                tmp_path,
                popen={"start_new_session": True},
            )
        master, slave = pty.openpty()
        try:
            os.write(master, typed)
            return await run_hookd(
                "host_terminal.py",
                bare_cli(claude),
                api,
                tmp_path,
                launcher=[sys.executable, "-c", TAKE_TERMINAL, str(slave)],
                popen={"start_new_session": True, "pass_fds": (slave,)},
            )
        finally:
            os.close(slave)
            os.close(master)


@pytest.mark.real_cli
@pytest.mark.req("R-715")
async def test_input_reads_the_users_terminal(claude: Path, tmp_path: Path) -> None:
    allowed = tmp_path / "allowed.txt"
    run = await run_touch(claude, tmp_path, allowed, typed=b"y\n")
    assert run.returncode == 0, run.stderr
    assert allowed.exists()
    assert f"Allow Bash: touch {allowed}? (y/N) " in run.stderr
    denied = tmp_path / "denied.txt"
    (tmp_path / "second").mkdir()
    run = await run_touch(claude, tmp_path / "second", denied, typed=b"no\n")
    assert not denied.exists()
    assert "the user answered 'no'" in str(run.tool_results())


@pytest.mark.real_cli
@pytest.mark.req("R-715")
async def test_without_a_terminal_input_fails_saying_why(claude: Path, tmp_path: Path) -> None:
    target = tmp_path / "never.txt"
    run = await run_touch(claude, tmp_path, target, typed=None)
    assert run.returncode == 0, run.stderr
    assert not target.exists()
    assert "hookd run has no terminal to ask the user on" in str(run.tool_results())


@pytest.mark.req("R-715")
async def test_hookd_serve_refuses_input_in_a_hook_clearly(tmp_path: Path) -> None:
    hooks = tmp_path / "asks.py"
    hooks.write_text(
        "from hookd import HookMatcher\n"
        "def asks(input_data, tool_use_id, context):\n"
        "    input('sure? ')\n"
        "hooks = {'PreToolUse': [HookMatcher(hooks=[asks])]}\n"
    )
    data = {
        "session_id": "s",
        "transcript_path": "/t",
        "cwd": str(tmp_path),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_use_id": "t1",
    }
    async with hookd_process("serve", str(hooks)) as (peer, _):
        await peer.send(hook_request("1", "hook_1", data, "t1"))
        reason = payload(await peer.recv())["hookSpecificOutput"]["permissionDecisionReason"]
        await peer.close()
    assert reason.startswith(
        "hookd: hook asks raised an exception: input() in a hook: hookd serve has no user"
    )
