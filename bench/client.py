"""The benchmark client: spawns one contender on pipes and drives it.

The client must cost far less than any contender, or it is what gets measured:

* every request is encoded before the clock starts (a :class:`~bench.workload.Block`);
* a window of ``W`` requests is kept in flight by counting ``\\n`` in large
  ``os.read`` chunks and writing the next run of requests as one zero-copy slice;
* it records one timestamp per read and per write, not per request; latencies
  are matched afterwards, first answer to first request (exact at ``W = 1``);
* answers are parsed only after the clock stops, on a sample of the first ones.

A watchdog kills a contender that stops answering, so no run can hang.
"""

from __future__ import annotations

import os
import resource
import select
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import msgspec

from bench import workload
from bench.flow import Flow
from bench.workload import Block

__all__ = ["Contender", "ContenderError", "Handshake", "RunResult"]

READ_BYTES: Final = 1 << 20
CLK_TCK: Final = os.sysconf("SC_CLK_TCK")


class ContenderError(Exception):
    """The contender did not start, died, stalled or answered wrongly."""


@dataclass(frozen=True)
class Handshake:
    callback_id: str
    spawn_to_init_ms: float | None
    spawn_to_first_hook_ms: float


@dataclass
class RunResult:
    n: int
    window: int
    wall_s: float
    client_cpu_s: float
    contender_cpu_s: float
    checked: int
    latencies_ns: list[int] = field(default_factory=list)
    rss_kib_at: dict[int, int] = field(default_factory=dict)

    @property
    def answers_per_s(self) -> float:
        return self.n / self.wall_s

    def percentile_us(self, q: float) -> float | None:
        if not self.latencies_ns:
            return None
        return self.latencies_ns[round(q * (len(self.latencies_ns) - 1))] / 1000


class Contender:
    """One contender process with its stdin and stdout on pipes."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: str,
        cpus: set[int] | None,
        env: dict[str, str] | None = None,
    ) -> None:
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed in close())
        self.spawned_ns = time.perf_counter_ns()
        try:
            self.proc = subprocess.Popen(
                list(argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                bufsize=0,
                cwd=cwd,
                env=env,
            )
        except OSError as exc:
            self._stderr.close()
            raise ContenderError(f"cannot spawn {argv[0]}: {exc}") from exc
        if cpus:
            os.sched_setaffinity(self.proc.pid, cpus)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._wfd, self._rfd = self.proc.stdin.fileno(), self.proc.stdout.fileno()
        os.set_blocking(self._wfd, False)
        self._pending = b""
        self._timed_out = False

    # -- handshake ---------------------------------------------------------------

    def handshake(self, *, contender_sends_initialize: bool, timeout_s: float) -> Handshake:
        """Initialize, then one hook_callback; time both from the spawn."""
        deadline = time.monotonic() + timeout_s
        init_ms: float | None = None
        if contender_sends_initialize:
            request = self._read_message(deadline)
            if request.get("type") != "control_request":
                raise ContenderError(f"expected its initialize request, got {request!r:.300}")
            callback_id = workload.callback_id_of(request["request"], "hook_0")
            self._write_all(_init_answer(request["request_id"]))
        else:
            self._write_all(workload.INIT_REQUEST)
            answer = self._read_message(deadline)
            init_ms = self._since_spawn_ms()
            response = answer.get("response") or {}
            if response.get("subtype") != "success" or response.get("request_id") != "init":
                raise ContenderError(f"initialize not answered with success: {answer!r:.300}")
            callback_id = workload.callback_id_of(response.get("response"), "hook_1")
        self._write_all(workload.single_request("warm", callback_id))
        line = self._read_line(deadline)
        hook_ms = self._since_spawn_ms()
        try:
            workload.check_answers([line], frozenset({"warm"}))
        except workload.AnswerError as exc:
            raise ContenderError(str(exc)) from exc
        if self._pending:
            raise ContenderError(f"unexpected output {self._pending[:200]!r}")
        return Handshake(callback_id, init_ms, hook_ms)

    def _since_spawn_ms(self) -> float:
        return (time.perf_counter_ns() - self.spawned_ns) / 1e6

    def _read_message(self, deadline: float) -> dict[str, Any]:
        line = self._read_line(deadline)
        try:
            message = msgspec.json.decode(line)
        except msgspec.DecodeError as exc:
            raise ContenderError(f"not JSON: {line[:200]!r}") from exc
        if not isinstance(message, dict):
            raise ContenderError(f"not a JSON object: {line[:200]!r}")
        return message

    def _read_line(self, deadline: float) -> bytes:
        while b"\n" not in self._pending:
            remaining = deadline - time.monotonic()
            ready, _, _ = select.select([self._rfd], [], [], max(remaining, 0))
            if not ready:
                raise ContenderError("no answer before the handshake deadline" + self.stderr_tail())
            chunk = os.read(self._rfd, READ_BYTES)
            if not chunk:
                raise ContenderError(self._death() + self.stderr_tail())
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        return line

    # -- the measured loop -------------------------------------------------------

    def run(
        self,
        block: Block,
        n: int,
        window: int,
        *,
        timeout_s: float,
        rss_marks: Sequence[int] = (),
        latency: bool = True,
        verify: bool = True,
    ) -> RunResult:
        """Send ``n`` requests keeping ``window`` in flight; count the answers.

        ``verify=False`` only counts lines (for calibrating against ``cat``).
        """
        flow = Flow(block, n, window, rss_marks, lambda: proc_status(self.proc.pid)["VmRSS"])
        watchdog = threading.Timer(timeout_s, self._expire)
        watchdog.start()
        cpu0, own0 = self.cpu_s(), _own_cpu_s()
        started = time.perf_counter_ns()
        try:
            self._pump(flow)
        finally:
            watchdog.cancel()
        wall_s = (time.perf_counter_ns() - started) / 1e9
        own_cpu, cpu = _own_cpu_s() - own0, self.cpu_s() - cpu0
        checked = self._verify(flow) if verify else 0
        lat = flow.latencies_ns() if latency else []
        return RunResult(n, window, wall_s, own_cpu, cpu, checked, lat, flow.rss_kib_at)

    def _pump(self, flow: Flow) -> None:
        read, clock, rfd = os.read, time.perf_counter_ns, self._rfd
        n, window = flow.n, flow.window
        self._send(flow, min(n, window))
        while flow.answered < n:
            chunk = read(rfd, READ_BYTES)
            now = clock()
            if not chunk:
                raise ContenderError(self._death() + self.stderr_tail())
            flow.absorb(chunk, now)
            target = min(n, flow.answered + window)
            if target > flow.sent:
                self._send(flow, target)

    def _send(self, flow: Flow, target: int) -> None:
        flow.sends.append(target)
        flow.sends.append(time.perf_counter_ns())
        for piece in flow.slices(target):
            self._write_all(piece, flow)
        flow.sent = target

    def _write_all(self, data: bytes | memoryview, flow: Flow | None = None) -> None:
        """Write everything; while the pipe is full, keep reading answers."""
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self._wfd, view) :]
            except BlockingIOError:
                pass
            except BrokenPipeError as exc:
                raise ContenderError(self._death() + self.stderr_tail()) from exc
            if view:
                watched = [self._rfd] if flow is not None else []
                readable, _, _ = select.select(watched, [self._wfd], [])
                if readable and flow is not None:
                    chunk = os.read(self._rfd, READ_BYTES)
                    if not chunk:
                        raise ContenderError(self._death() + self.stderr_tail())
                    flow.absorb(chunk, time.perf_counter_ns())

    def _verify(self, flow: Flow) -> int:
        if flow.answered != flow.n or not flow.tail.endswith(b"\n"):
            raise ContenderError(f"{flow.answered} answer lines for {flow.n} requests")
        # Beyond the first block.n - window answers, an id may legitimately repeat.
        sample = max(1, flow.block.n - flow.window)
        lines = b"".join(flow.kept).split(b"\n")[:-1][:sample]
        try:
            return workload.check_answers(lines, flow.block.ids)
        except workload.AnswerError as exc:
            raise ContenderError(str(exc)) from exc

    # -- process bookkeeping -----------------------------------------------------

    def _expire(self) -> None:
        self._timed_out = True
        self.proc.kill()

    def _death(self) -> str:
        if self._timed_out:
            return "stopped answering (killed by the watchdog)"
        try:
            return f"closed its stdout and exited with code {self.proc.wait(timeout=5)}"
        except subprocess.TimeoutExpired:
            return "closed its stdout but is still running"

    def stderr_tail(self) -> str:
        self._stderr.seek(0, os.SEEK_END)
        size = self._stderr.tell()
        self._stderr.seek(max(0, size - 600))
        text = self._stderr.read().decode(errors="replace").strip()
        return f"; stderr: ...{text}" if text else ""

    def cpu_s(self) -> float:
        """User + system CPU of the contender and its reaped children."""
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rpartition(")")[2].split()
        return sum(int(x) for x in fields[11:15]) / CLK_TCK

    def status(self) -> dict[str, int]:
        return proc_status(self.proc.pid)

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self._stderr.close()


def proc_status(pid: int) -> dict[str, int]:
    """The ``kB`` fields of ``/proc/<pid>/status`` (VmHWM, VmRSS, ...), in KiB."""
    out: dict[str, int] = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if value.endswith(" kB\n"):
                out[key] = int(value[: -len(" kB\n")])
    return out


def _own_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _init_answer(request_id: str) -> bytes:
    answer = {
        "type": "control_response",
        "response": {"subtype": "success", "request_id": request_id, "response": {}},
    }
    return msgspec.json.encode(answer) + b"\n"
