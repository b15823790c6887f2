"""Running the agent shim, and ready files as the daemon writes them.

A test-owned listener is accepted by the shim only through the same proof it asks of the
daemon: a ready file of this user naming the port, a live process and that process's start
time. The listener runs in the test process, so the file names the test process.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import trio

from hookd.agents import SHIM

__all__ = ["one_line", "ready_file", "run_shim", "start_ticks"]


def start_ticks(pid: int | str = "self") -> int:
    """Field 22 of ``/proc/PID/stat``: when the process started, in clock ticks after boot."""
    stat = Path(f"/proc/{pid}/stat").read_bytes()
    return int(stat.rsplit(b")", 1)[1].split()[19])


def ready_file(path: Path, port: int, pid: int, ticks: int | None) -> Path:
    """A ready file in the daemon's shape: pid first, then its start time (unless None)."""
    fields: dict[str, object] = {"pid": pid}
    if ticks is not None:
        fields["start_ticks"] = ticks
    fields |= {"host": "127.0.0.1", "port": port, "module": "/nowhere/hooks.py"}
    path.write_text(json.dumps(fields) + "\n")
    path.chmod(0o600)
    return path


async def run_shim(
    *args: str, stdin: bytes, timeout_s: float = 20
) -> subprocess.CompletedProcess[bytes]:
    """``bash SHIM ARGS...`` to exit, the payload on stdin."""
    with trio.fail_after(timeout_s):
        return await trio.run_process(
            ["bash", SHIM, *args], stdin=stdin, capture_stdout=True, capture_stderr=True,
            check=False,
        )  # fmt: skip


def one_line(stderr: bytes | str) -> str:
    """The one line on stderr (fails when there are more or none)."""
    text = stderr.decode() if isinstance(stderr, bytes) else stderr
    (line,) = text.splitlines()
    return line
