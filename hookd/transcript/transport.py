"""What a replay needs from the way it talks to ``hookd serve``: the one part that differs.

A :class:`Transport` starts the server process, sends one recorded message,
delivers every answer to the result's :class:`~hookd.transcript.answers.Answers`,
and stops the server, saying in the result's errors what went wrong. The
player (:mod:`hookd.transcript.player`) does the rest, the same for every
transport. Two exist: stdio pipes (:mod:`hookd.transcript.transport_stdio`) and
HTTP keep-alive connections (:mod:`hookd.transcript.transport_http`).
"""

from __future__ import annotations

import subprocess
import sys
from abc import ABC, abstractmethod
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import trio

from hookd.transcript.format import TranscriptError

if TYPE_CHECKING:
    from hookd.transcript.plan import Step
    from hookd.transcript.session import ReplayConfig, ReplayResult

__all__ = ["START_TIMEOUT_S", "Transport", "serve_command"]

#: Longest wait for hookd to start and take its first request.
START_TIMEOUT_S: Final = 30.0
STDERR_TAIL_BYTES: Final = 64 * 1024


def serve_command(result: ReplayResult, config: ReplayConfig, *transport: str) -> list[str]:
    """``python -m hookd serve HOOKS [transport args] [serve args]`` for this transcript."""
    header = result.transcript.header
    hooks = config.hooks or result.transcript.hooks_spec()
    if hooks is None:
        raise TranscriptError("no hooks module: pass --hooks or name one in the header")
    args = [*transport, *header.serve_args, *config.serve_args]
    return [sys.executable, "-m", "hookd", "serve", hooks, *args]


class Transport(ABC):
    """One server process and the way the replay talks to it.

    ``folder`` is a private folder that lives as long as the replay (for the
    files a transport hands the server).
    """

    #: hookd's answer to the transport's own ``initialize``, when it sent one: the
    #: live callback ids the recorded ones are matched to.
    initialize_answer: Any = None

    def __init__(self, result: ReplayResult, config: ReplayConfig, folder: Path) -> None:
        self.result, self.config, self.folder = result, config, folder
        self.proc: trio.Process | None = None

    @property
    @abstractmethod
    def command(self) -> list[str]:
        """The server's command line."""

    @abstractmethod
    async def start(self, nursery: trio.Nursery) -> bool:
        """Start the server and wait until it takes requests; False if it never did."""

    @abstractmethod
    async def send(self, step: Step, msg: Any) -> bool:
        """Send one recorded message (``msg``: the step's, its callback ids mapped);
        False if it could not be sent (said in the result's errors)."""

    @abstractmethod
    async def drain(self) -> None:
        """After the last expected answer: wait until any answer still to come has come."""

    @abstractmethod
    async def stop(self) -> None:
        """End the server as the transport's client would; check its exit status."""

    # -- the server process, the same for every transport ----------------------------

    async def spawn(self, nursery: trio.Nursery, stdin: int, stdout: int | None) -> trio.Process:
        """Start the server with its stderr kept (the tail goes into the report)."""
        self.proc = proc = await trio.lowlevel.open_process(
            self.command, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE
        )
        assert proc.stderr is not None
        nursery.start_soon(_read_stderr, proc.stderr, self.result.stderr)
        return proc

    async def wait_exit(self, after: str, note: str = "") -> None:
        """Wait for the server to exit ``after`` (what made it), killing it on timeout;
        ``note`` follows the code of an exit that was not 0."""
        assert self.proc is not None
        timeout_s = self.config.timeout_s
        with trio.move_on_after(timeout_s):
            code = self.result.returncode = await self.proc.wait()
            if code != 0:
                self.result.errors.append(f"hookd exited with code {code}{note}")
            return
        self.result.errors.append(f"hookd did not exit within {timeout_s:g}s of {after}")
        self.proc.kill()

    async def reap(self) -> None:
        """Kill the server if it still runs (the replay failed or was cancelled)."""
        if self.proc is None:
            return
        if self.proc.returncode is None:
            self.proc.kill()
        await self.proc.wait()


async def _read_stderr(stderr: trio.abc.ReceiveStream, tail: bytearray) -> None:
    async for chunk in stderr:
        tail += chunk
        del tail[:-STDERR_TAIL_BYTES]
