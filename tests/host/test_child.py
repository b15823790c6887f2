"""The child process hookd stands in front of: exit status, reaping, passing signals on."""

from __future__ import annotations

import signal
import subprocess
import sys
from functools import partial

import trio
import trio.testing

from hookd.host.child import exit_status, forward_signals, reap


def test_exit_status_reads_as_a_shell_would() -> None:
    assert exit_status(0) == 0
    assert exit_status(3) == 3
    assert exit_status(-signal.SIGTERM) == 128 + signal.SIGTERM
    assert exit_status(None) == 1


SLEEPER = "import sys, time; sys.stdout.write('ready\\n'); sys.stdout.flush(); time.sleep(60)"
IGNORE = "import signal as s; s.signal(s.SIGINT, s.SIG_IGN); s.signal(s.SIGTERM, s.SIG_IGN); "


async def _started(*, ignore: bool = False) -> trio.Process:
    code = IGNORE if ignore else ""
    proc = await trio.lowlevel.open_process(
        [sys.executable, "-c", code + SLEEPER], stdout=subprocess.PIPE
    )
    assert proc.stdout is not None
    got = b""
    with trio.fail_after(30):
        while not got.endswith(b"\n"):
            got += await proc.stdout.receive_some()
    assert got == b"ready\n"
    return proc


async def test_reap_returns_the_status_of_a_child_killed_by_a_signal() -> None:
    proc = await _started()
    proc.send_signal(signal.SIGTERM)
    with trio.fail_after(30):
        assert await reap(proc) == 128 + signal.SIGTERM


async def test_a_signal_to_hookd_goes_on_to_the_child() -> None:
    proc = await _started()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(partial(forward_signals, proc, kill_on_repeat=False))
        await trio.testing.wait_all_tasks_blocked()
        signal.raise_signal(signal.SIGTERM)
        with trio.fail_after(30):
            assert await proc.wait() == -signal.SIGTERM
        nursery.cancel_scope.cancel()


async def test_a_second_signal_kills_a_child_that_ignores_signals() -> None:
    proc = await _started(ignore=True)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(partial(forward_signals, proc, kill_on_repeat=True))
        await trio.testing.wait_all_tasks_blocked()
        signal.raise_signal(signal.SIGINT)  # forwarded as is
        signal.raise_signal(signal.SIGTERM)  # the second: SIGKILL
        with trio.fail_after(30):
            assert await proc.wait() == -signal.SIGKILL
        nursery.cancel_scope.cancel()
