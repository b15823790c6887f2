"""The candidate module of ``hookd whatif``, loaded in a process of its own, on a leash.

The child (:mod:`hookd.cli.whatif_child`) runs in a session and process group of
its own. It has ``--load-timeout`` seconds to say it loaded (a module that loops or
sleeps at import is killed then, and the replay ends with one line); what it and
its hooks write on stdout and stderr is read as it comes and only the last
:data:`KEPT_BYTES` are kept (the rest counted), never spooled to a file; and
when the replay ends, the whole group is killed, so a process a hook forked does
not outlive ``hookd whatif`` (one that made a session of its own escapes it).
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from types import TracebackType
from typing import IO, Any, Final

from hookd.errors import HookdError

__all__ = ["CHILD_MODULE", "KEPT_BYTES", "Candidate", "WhatifError"]

CHILD_MODULE: Final = "hookd.cli.whatif_child"
#: Seconds the child has to exit once its stdin closed, before its group is killed.
STOP_WAIT_S: Final = 10.0
#: The candidate's output kept (its last bytes: the lines an error is explained with).
KEPT_BYTES: Final = 64 * 1024
_READ_BYTES: Final = 64 * 1024


class WhatifError(HookdError):
    """A one-line reason the replay cannot go on."""


class _Tail:
    """The last :data:`KEPT_BYTES` of a stream, read by a thread of its own; the rest counted."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.kept = bytearray()
        self.total = 0
        self._stream = stream
        self._thread = threading.Thread(target=self._read, name="hookd-whatif-tail", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        fd = self._stream.fileno()
        while chunk := os.read(fd, _READ_BYTES):
            self.total += len(chunk)
            self.kept += chunk
            if len(self.kept) > KEPT_BYTES:
                del self.kept[: len(self.kept) - KEPT_BYTES]

    def last_line(self) -> str:
        lines = bytes(self.kept).decode("utf-8", "replace").strip().splitlines()
        return lines[-1] if lines else ""

    def close(self, timeout_s: float) -> None:
        """Wait for the writers to be gone (EOF), then close the stream."""
        self._thread.join(timeout_s)
        if not self._thread.is_alive():
            self._stream.close()


class _Lines:
    """Lines from a pipe, each read under a deadline (``select``; no thread)."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._fd = stream.fileno()
        self._buffer = bytearray()

    def readline(self, deadline: float | None) -> bytes:
        """The next line, b"" at EOF; :class:`TimeoutError` past ``deadline`` (monotonic)."""
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line = bytes(self._buffer[: end + 1])
                del self._buffer[: end + 1]
                return line
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([self._fd], [], [], left)[0]:
                    raise TimeoutError
            chunk = os.read(self._fd, _READ_BYTES)
            if not chunk:
                return b""
            self._buffer += chunk


class Candidate:
    """The candidate module, loaded in a child process that answers one call per line."""

    def __init__(self, spec: str, load_timeout_s: float = 10.0) -> None:
        self.spec = spec
        self.load_timeout_s = load_timeout_s
        self.version = ""
        self.redact: list[str] = []

    def __enter__(self) -> Candidate:
        self._proc = subprocess.Popen(
            [sys.executable, "-P", "-m", CHILD_MODULE, self.spec],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its group is killed at the end, forked children too
        )
        assert self._proc.stdout is not None and self._proc.stderr is not None
        self._said = _Tail(self._proc.stderr)
        self._lines = _Lines(self._proc.stdout)
        try:
            hello = self._hello()
            if "error" in hello:
                raise WhatifError(hello["error"])
        except BaseException:
            self.close()
            raise
        self.version = str(hello["loaded"]["version"])
        self.redact = list(hello["loaded"]["redact"])
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _hello(self) -> dict[str, Any]:
        try:
            return self._read(time.monotonic() + self.load_timeout_s)
        except TimeoutError:
            raise WhatifError(
                f"{self.spec}: did not load within {self.load_timeout_s:g}s (--load-timeout); "
                "its process was killed"
            ) from None

    def ask(self, event: str, agent: str, data: dict[str, Any]) -> dict[str, Any]:
        """The candidate's answer to one call: ``decision``, ``reason``, ``hooks``, ``failure``."""
        assert self._proc.stdin is not None
        line = json.dumps({"event": event, "agent": agent, "input": data}) + "\n"
        try:
            self._proc.stdin.write(line.encode())
            self._proc.stdin.flush()
        except BrokenPipeError:
            raise self._ended() from None
        return self._read(None)

    def _read(self, deadline: float | None) -> dict[str, Any]:
        line = self._lines.readline(deadline)
        if not line:
            raise self._ended()
        found: dict[str, Any] = json.loads(line)
        return found

    def _ended(self) -> WhatifError:
        status = self._proc.wait()
        self._said.close(STOP_WAIT_S)
        said = self._said.last_line()
        said = f": {said}" if said else ""
        return WhatifError(f"{self.spec}: the candidate's process ended (status {status}){said}")

    def close(self) -> None:
        """End the child (its stdin closed, it exits; else killed), then kill what is left of
        its process group, and forget its output."""
        if self._proc.stdin is not None and not self._proc.stdin.closed:
            with contextlib.suppress(BrokenPipeError):
                self._proc.stdin.close()
        if self._proc.returncode is None:
            try:
                self._proc.wait(STOP_WAIT_S if self.version else 0)  # unloaded: it may hang
            except subprocess.TimeoutExpired:
                self._kill_group()
                self._proc.wait()
        self._kill_group()  # what its hooks forked, still in its group
        self._said.close(STOP_WAIT_S)
        if self._proc.stdout is not None:
            self._proc.stdout.close()

    def _kill_group(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._proc.pid, signal.SIGKILL)
