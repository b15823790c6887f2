"""``hookd record``: run a command and tee its protocol traffic into a transcript.

The command line is :mod:`hookd.cli.record`'s.

Two ways, chosen with ``--via`` (default ``auto``):

* ``proxy``: COMMAND speaks the protocol on its stdio (``hookd serve HOOKS``).
  The recorder stands between its own stdio and COMMAND's, passing every byte
  through unchanged and writing each line to the transcript. A CLI configured
  to spawn ``hookd record --out FILE -- hookd serve HOOKS`` is recorded as is.
* ``env``: COMMAND is a CLI that spawns ``hookd serve`` itself. The recorder
  sets ``HOOKD_RECORD=FILE`` for it, and ``hookd serve`` records its own session.

``auto`` picks ``proxy`` when COMMAND is a ``hookd serve`` invocation, else ``env``.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import trio

from hookd import wire
from hookd.host.child import exit_status, forward_signals
from hookd.transcript.format import RECORD_ENV
from hookd.transcript.tee import tee_streams

__all__ = ["record_env", "record_proxy"]

# --------------------------------------------------------------------------- proxy


def record_proxy(command: Sequence[str], out: str | Path, header: dict[str, Any]) -> int:
    """Run ``command`` between this process's stdio and a transcript; its exit status."""
    out = Path(out)
    fd_in, fd_out = os.dup(0), os.dup(1)
    try:
        return trio.run(_proxy, list(command), out, header, fd_in, fd_out)
    finally:
        for fd in (fd_in, fd_out):
            with contextlib.suppress(OSError):
                os.set_blocking(fd, True)
                os.close(fd)


async def _proxy(
    command: list[str], out: Path, header: dict[str, Any], fd_in: int, fd_out: int
) -> int:
    proc = await trio.lowlevel.open_process(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    receive, send = tee_streams(
        trio.lowlevel.FdStream(fd_in), trio.lowlevel.FdStream(fd_out), out, header
    )
    async with trio.open_nursery() as nursery:
        nursery.start_soon(partial(forward_signals, proc, kill_on_repeat=False))
        nursery.start_soon(_pump, receive, proc.stdin)
        await _pump(proc.stdout, send)
        await proc.wait()
        nursery.cancel_scope.cancel()
    for stream in (receive, send):
        with contextlib.suppress(trio.BrokenResourceError, OSError):
            await stream.aclose()
    return exit_status(proc.returncode)


async def _pump(source: trio.abc.ReceiveStream, sink: trio.abc.SendStream) -> None:
    """Copy ``source`` to ``sink`` until EOF, then close ``sink``."""
    with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
        while data := await source.receive_some(wire.READ_SIZE):
            await sink.send_all(data)
    with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
        await sink.aclose()


# ----------------------------------------------------------------------------- env


def record_env(command: Sequence[str], out: str | Path) -> int:
    """Run ``command`` with ``HOOKD_RECORD`` set, so the ``hookd serve`` it starts records."""
    env = {**os.environ, RECORD_ENV: str(Path(out).resolve())}
    try:
        return exit_status(subprocess.run(list(command), env=env, check=False).returncode)
    except OSError as exc:
        print(f"hookd record: error: cannot run {command[0]}: {exc}", file=sys.stderr)
        return 127
