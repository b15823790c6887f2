"""Helpers for the fuzz, fault and soak suites: a real ``hookd serve`` process on pipes.

:class:`Hookd` drives one process: requests go in through :class:`tests.peer.Peer`,
answers come back through :class:`LineReader` (linear in the bytes read, so a
50 MB answer or a million small ones cost no more than reading them), stderr
goes to a file the test can read afterwards, and :meth:`Hookd.usage` reads the
process's RSS, open file descriptors and threads from ``/proc``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pytest
import trio

from tests.peer import Peer, answer_id, hook_request, pre_tool_use

ROOT: Final = Path(__file__).resolve().parents[2]
FAULTS: Final = Path(__file__).resolve().parents[1] / "hooks" / "faults"
READ_BYTES: Final = 1 << 20
#: The well-behaved hooks of every fault module (tests/hooks/faults/_healthy.py).
HEALTHY: Final = ("Ok", "OkThread", "OkAsyncio")

Answer = dict[str, Any]


class LineReader:
    """Complete lines from a byte stream, each byte scanned once."""

    def __init__(self, stream: trio.abc.ReceiveStream) -> None:
        self._stream = stream
        self._buf = bytearray()
        self._scanned = 0
        self.eof = False
        self.bytes_read = 0

    async def line(self, timeout: float = 10) -> bytes:
        """The next line without its newline (EOFError at end of stream)."""
        with trio.fail_after(timeout):
            while True:
                end = self._buf.find(b"\n", self._scanned)
                if end >= 0:
                    line = bytes(self._buf[:end])
                    del self._buf[: end + 1]
                    self._scanned = 0
                    return line
                self._scanned = len(self._buf)
                if not await self._fill():
                    raise EOFError("hookd closed its stdout")

    async def available(self) -> list[bytes]:
        """Read once (waiting for data), then return every complete line so far."""
        if not self.eof:
            await self._fill()
        end = self._buf.rfind(b"\n", self._scanned)
        if end < 0:
            self._scanned = len(self._buf)
            return []
        lines = bytes(self._buf[:end]).split(b"\n")
        del self._buf[: end + 1]
        self._scanned = 0
        return lines

    async def rest(self, timeout: float = 10) -> bytes:
        """Everything up to EOF."""
        with trio.fail_after(timeout):
            while await self._fill():
                pass
        data = bytes(self._buf)
        self._buf.clear()
        return data

    async def _fill(self) -> bool:
        data = await self._stream.receive_some(READ_BYTES)
        if not data:
            self.eof = True
            return False
        self._buf += data
        self.bytes_read += len(data)
        return True


def parse_answer(line: bytes) -> Answer:
    """One stdout line as an answer; fails the test if it is not a protocol answer."""
    try:
        msg = json.loads(line)
    except ValueError as exc:
        raise AssertionError(f"stdout line is not JSON: {line[:200]!r}") from exc
    if isinstance(msg, list):
        assert msg and all(_is_rpc_answer(m) for m in msg), line[:200]
        return {"batch": msg}
    assert _is_control_answer(msg) or _is_rpc_answer(msg), line[:200]
    assert isinstance(msg, dict)
    return msg


def _is_control_answer(msg: Any) -> bool:
    resp = msg.get("response") if isinstance(msg, dict) else None
    return (
        isinstance(resp, dict)
        and msg.get("type") == "control_response"
        and resp.get("subtype") in ("success", "error")
        and isinstance(resp.get("request_id"), str)
        and ("response" in resp) == (resp["subtype"] == "success")
    )


def _is_rpc_answer(msg: Any) -> bool:
    return (
        isinstance(msg, dict)
        and msg.get("jsonrpc") == "2.0"
        and "id" in msg
        and ("result" in msg) != ("error" in msg)
    )


def ids_of(answers: Iterable[Answer]) -> Counter[Any]:
    """How many answers each request id got (batch members counted one by one)."""
    found: Counter[Any] = Counter()
    for msg in answers:
        for item in msg.get("batch", [msg]):
            found[answer_id(item)] += 1
    return found


def success(msg: Answer) -> Any:
    """The success payload of a control answer (fails on an error answer)."""
    resp = msg["response"]
    assert resp["subtype"] == "success", resp
    return resp["response"]


def failure(msg: Answer) -> tuple[str, str]:
    """``(error, error_code)`` of a control error answer (fails on a success)."""
    resp = msg["response"]
    assert resp["subtype"] == "error", resp
    return resp["error"], resp["error_code"]


def allowed(msg: Answer) -> str:
    """The reason of a PreToolUse allow answer (fails on anything else)."""
    specific = success(msg)["hookSpecificOutput"]
    assert specific["permissionDecision"] == "allow", specific
    reason: str = specific["permissionDecisionReason"]
    return reason


def denial(msg: Answer) -> str:
    """The reason of a PreToolUse deny answer (fails on anything else)."""
    specific = success(msg)["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny", specific
    reason: str = specific["permissionDecisionReason"]
    return reason


@dataclass(frozen=True, slots=True)
class Usage:
    """What one process holds: resident memory (peak too) in KiB, fds, threads."""

    rss_kib: int
    peak_rss_kib: int
    fds: int
    threads: int

    def __str__(self) -> str:
        return (
            f"RSS {self.rss_kib / 1024:.1f} MiB (peak {self.peak_rss_kib / 1024:.1f} MiB), "
            f"{self.fds} fds, {self.threads} threads"
        )


def usage(pid: int) -> Usage:
    """Read ``/proc/<pid>`` (Linux)."""
    fields: dict[str, str] = {}
    for row in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = row.partition(":")
        fields[key] = value.strip()
    return Usage(
        rss_kib=int(fields["VmRSS"].split()[0]),
        peak_rss_kib=int(fields["VmHWM"].split()[0]),
        fds=len(os.listdir(f"/proc/{pid}/fd")),
        threads=int(fields["Threads"]),
    )


class Hookd:
    """One running ``hookd serve`` process and the test's two ends of its pipes."""

    def __init__(self, proc: trio.Process, stderr_path: Path) -> None:
        assert proc.stdin is not None and proc.stdout is not None
        self.proc = proc
        self.peer = Peer(proc.stdin, proc.stdout)
        self.out = LineReader(proc.stdout)
        self.stderr_path = stderr_path
        self._ids: dict[str, list[str]] = {}

    async def send(
        self, *messages: dict[str, Any] | list[Any] | bytes, timeout: float = 60
    ) -> None:
        """Write to hookd's stdin (fails the test if hookd stops reading for ``timeout`` s)."""
        with trio.fail_after(timeout):
            await self.peer.send(*messages)

    async def answer(self, timeout: float = 10) -> Answer:
        return parse_answer(await self.out.line(timeout))

    async def answers(self, n: int, timeout: float = 10) -> dict[Any, Answer]:
        """``n`` answers keyed by request id; fails on a repeated id."""
        got: dict[Any, Answer] = {}
        for _ in range(n):
            msg = await self.answer(timeout)
            key = answer_id(msg)
            assert key not in got, f"second answer for {key!r}: {msg}"
            got[key] = msg
        return got

    async def ask(
        self, request_id: str, callback_id: str, input_data: dict[str, Any], timeout: float = 10
    ) -> Answer:
        """Send one hook request and return its answer (no other answer may come first)."""
        await self.send(hook_request(request_id, callback_id, input_data))
        msg = await self.answer(timeout)
        assert answer_id(msg) == request_id, msg
        return msg

    async def initialize(self) -> dict[str, list[str]]:
        """Send ``initialize``; ``"Event/matcher"`` -> callback ids from its answer."""
        init = {
            "type": "control_request",
            "request_id": "init",
            "request": {"subtype": "initialize"},
        }
        await self.send(init)
        hooks = success(await self.answer())["hooks"]
        self._ids = {
            f"{event}/{group['matcher']}": group["hookCallbackIds"]
            for event, groups in hooks.items()
            for group in groups
        }
        return self._ids

    async def callback_ids(self) -> dict[str, list[str]]:
        """The callback ids (``initialize`` is sent the first time only)."""
        return self._ids or await self.initialize()

    async def callback(self, key: str) -> str:
        """The one callback id registered under ``"Event/matcher"``."""
        (only,) = (await self.callback_ids())[key]
        return only

    async def still_serves(self, tag: str = "after", timeout: float = 10) -> None:
        """Normal requests to the healthy hooks (trio, thread, asyncio) are answered ``allow``."""
        for matcher in HEALTHY:
            callback_id = await self.callback(f"PreToolUse/{matcher}")
            msg = await self.ask(f"{tag}-{matcher}", callback_id, pre_tool_use(matcher), timeout)
            assert allowed(msg) == "ok", msg

    async def close_stdin(self) -> None:
        await self.peer.close()

    async def exit_code(self, timeout: float = 10) -> int:
        with trio.fail_after(timeout):
            return await self.proc.wait()

    def usage(self) -> Usage:
        return usage(self.proc.pid)

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")


def fault_module(name: str) -> str:
    """Path of the hooks module ``tests/hooks/faults/<name>.py``."""
    path = FAULTS / f"{name}.py"
    assert path.is_file(), path
    return str(path)


@asynccontextmanager
async def running(
    hooks: str, tmp_path: Path, *args: str, stderr: bool = True
) -> AsyncIterator[Hookd]:
    """``hookd serve HOOKS ARGS`` on pipes, stderr in ``tmp_path`` (or /dev/null).

    The process runs from the repository root (fault modules import
    ``tests.hooks.faults``); it is killed if it is still running at the end.
    """
    argv = [sys.executable, "-m", "hookd", "serve", hooks, "--log-format", "json", *args]
    stderr_path = tmp_path / "hookd.stderr"
    with open(stderr_path if stderr else os.devnull, "wb") as err:
        proc = await trio.lowlevel.open_process(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, cwd=ROOT
        )
    try:
        yield Hookd(proc, stderr_path)
    finally:
        if proc.returncode is None:
            proc.kill()
            with trio.move_on_after(10):
                await proc.wait()


#: The closing figures of the suites that ran, shown at the end of pytest's report.
FIGURES = pytest.StashKey[list[str]]()


def print_figures(config: pytest.Config, text: str) -> None:
    """Keep a suite's closing figures for the end of the report (tests/conftest.py shows them),
    not among pytest's progress dots."""
    config.stash.setdefault(FIGURES, []).append(text)
