"""The HTTP transport's server-side benchmark: PreToolUse POSTs to ``hookd serve --http``.

``python -m bench.http_server`` (``make bench`` runs it after ``bench.run``) starts
``hookd serve bench/hook_allow.py --http 127.0.0.1:0`` with validation on and
the default log level, and drives it with a client cheaper than the server:
blocking raw sockets, every request's bytes built before the clock starts,
answers found by their ``Content-Length`` without parsing them, one
``perf_counter_ns`` before each send and after each answer. Keep-alive
connections, one request in flight on each; first at 1 connection, then at 16
(one thread, ``select.poll`` over the sockets). Prints p50/p99 per POST,
answers/s and hookd's CPU per answer, and writes ``bench/results/http.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import select
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

import msgspec

from bench import workload
from bench.targets import quartiles

ROOT: Final = Path(__file__).resolve().parents[1]
HOOK: Final = ROOT / "bench" / "hook_allow.py"
RESULTS: Final = ROOT / "bench" / "results" / "http.json"
CLK_TCK: Final = os.sysconf("SC_CLK_TCK")
TARGET_P50_MS: Final = 0.3
TARGET_P99_MS: Final = 2.0


@dataclass
class Run:
    connections: int
    requests: int
    wall_s: float
    answers_per_s: float
    p50_ms: float
    p99_ms: float
    hookd_cpu_us_per_answer: float


def requests(n: int, token: str) -> list[bytes]:
    """``n`` distinct PreToolUse POSTs, encoded: head and body in one ``bytes`` each."""
    rng = random.Random(1)
    out = []
    for i in range(n):
        command, description = workload.COMMANDS[i % len(workload.COMMANDS)]
        body = msgspec.json.encode(
            {
                "session_id": workload.SESSION_ID,
                "transcript_path": workload.TRANSCRIPT,
                "cwd": workload.CWD,
                "permission_mode": "default",
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": command, "description": description},
                "tool_use_id": f"toolu_01{rng.getrandbits(64):016x}",
            }
        )
        head = (
            "POST /hook/PreToolUse HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: keep-alive\r\n\r\n"
        )
        out.append(head.encode() + body)
    return out


class Conn:
    """One keep-alive connection with at most one request in flight."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.sent_ns = 0
        self.answers: list[bytes] = []

    def send(self, data: bytes) -> None:
        self.sent_ns = time.perf_counter_ns()
        self.sock.sendall(data)

    def answer(self) -> bytes | None:
        """A whole answer if the buffer holds one (reads once when it does not)."""
        found = self._split()
        if found is not None:
            return found
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("hookd closed the connection")
        self.buf += chunk
        return self._split()

    def _split(self) -> bytes | None:
        end = self.buf.find(b"\r\n\r\n")
        if end < 0:
            return None
        at = self.buf.find(b"content-length: ", 0, end)
        length = int(self.buf[at + 16 : self.buf.find(b"\r\n", at)])
        if len(self.buf) < end + 4 + length:
            return None
        whole, self.buf = self.buf[: end + 4 + length], self.buf[end + 4 + length :]
        return whole


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def drive(port: int, pid: int, reqs: list[bytes], connections: int) -> Run:
    conns = [Conn(port) for _ in range(connections)]
    by_fd = {c.sock.fileno(): c for c in conns}
    poller = select.poll()
    for c in conns:
        poller.register(c.sock, select.POLLIN)
    latencies: list[int] = []
    todo = iter(reqs)
    cpu0, t0 = cpu_s(pid), time.perf_counter()
    busy = 0
    for c in conns:
        c.send(next(todo))
        busy += 1
    while busy:
        for fd, _ in poller.poll():
            c = by_fd[fd]
            whole = c.answer()  # one request in flight per connection: one answer at most
            if whole is None:
                continue
            latencies.append(time.perf_counter_ns() - c.sent_ns)
            if len(c.answers) < 3:
                c.answers.append(whole)
            nxt = next(todo, None)
            if nxt is None:
                busy -= 1
                poller.unregister(c.sock)
            else:
                c.send(nxt)
    wall = time.perf_counter() - t0
    cpu = cpu_s(pid) - cpu0
    for c in conns:
        for whole in c.answers:
            check(whole)
        c.sock.close()
    latencies.sort()
    n = len(latencies)
    return Run(
        connections, n, round(wall, 3), round(n / wall), round(latencies[n // 2] / 1e6, 3),
        round(latencies[min(n - 1, int(n * 0.99))] / 1e6, 3), round(cpu / n * 1e6, 1),
    )  # fmt: skip


def check(whole: bytes) -> None:
    head, _, body = whole.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 "), head
    decision = json.loads(body)["hookSpecificOutput"]["permissionDecision"]
    assert decision == "allow", body


def start(
    folder: Path,
    token: str,
    hookd: tuple[str, ...] = (sys.executable, "-m", "hookd"),
    extra: tuple[str, ...] = (),
) -> tuple[subprocess.Popen[bytes], int]:
    folder.mkdir(exist_ok=True)
    (folder / "token").write_text(token)
    ready = folder / "ready.json"
    argv = [*hookd, "serve", str(HOOK), "--http", "127.0.0.1:0",
            "--token-file", str(folder / "token"), "--ready-file", str(ready),
            "--log-format", "json", *extra]  # fmt: skip
    log = (folder / "hookd.log").open("wb")
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    deadline = time.monotonic() + 60
    while not ready.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"hookd did not start: {(folder / 'hookd.log').read_text()}")
        time.sleep(0.01)
    return proc, int(json.loads(ready.read_text())["port"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.http_server", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small counts (a smoke check)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the JSON")
    parser.add_argument(
        "--decision-log-only",
        action="store_true",
        help="run only the decision log's on/off comparison",
    )
    args = parser.parse_args(argv)
    n = 2_000 if args.quick else 20_000
    token = secrets.token_hex(16)
    reqs = requests(n, token)
    rounds = 3 if args.quick else DECISION_ROUNDS
    if args.decision_log_only:
        decision_log_cost(token, reqs[: n // 4], rounds)
        return 0
    with tempfile.TemporaryDirectory(prefix="hookd-bench-http-") as tmp:
        proc, port = start(Path(tmp), token)
        try:
            drive(port, proc.pid, reqs[: n // 10], 4)  # warm-up
            runs = [drive(port, proc.pid, reqs, k) for k in (1, 16)]
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    report(runs, args.out, n)
    decision_log_cost(token, reqs[: n // 4], rounds)
    base = os.environ.get("HOOKD_BENCH_BASE")
    if base:
        compare(Path(base), token, reqs[: n // 4])
    return 0


#: Paired rounds of the decision log's on/off comparison.
DECISION_ROUNDS = 11
#: The most the decision log may cost the HTTP path's answers/s.
DECISION_BUDGET = 0.05


def decision_log_cost(token: str, reqs: list[bytes], rounds: int) -> None:
    """Answers/s with the decision log on against off: two servers, paired rounds at one
    connection, the order alternating; the ratio's median and IQR over the pairs."""
    with tempfile.TemporaryDirectory(prefix="hookd-bench-decisions-") as tmp:
        store = Path(tmp) / "on" / "decisions.sqlite3"
        on, on_port = start(Path(tmp) / "on", token, extra=("--decision-log", str(store)))
        off, off_port = start(Path(tmp) / "off", token)
        pairs: list[tuple[Run, Run]] = []
        try:
            drive(on_port, on.pid, reqs[:500], 1)
            drive(off_port, off.pid, reqs[:500], 1)
            for i in range(rounds):
                if i % 2:
                    b = drive(off_port, off.pid, reqs, 1)
                    a = drive(on_port, on.pid, reqs, 1)
                else:
                    a = drive(on_port, on.pid, reqs, 1)
                    b = drive(off_port, off.pid, reqs, 1)
                pairs.append((a, b))
        finally:
            for proc in (on, off):
                proc.terminate()
                proc.wait(timeout=30)
        written = _rows(store)
    ratios = [a.answers_per_s / b.answers_per_s for a, b in pairs]
    cpu = [a.hookd_cpu_us_per_answer / b.hookd_cpu_us_per_answer for a, b in pairs]
    q1, median, q3 = quartiles(ratios)
    c1, cmed, c3 = quartiles(cpu)
    cost = 1 - median
    print(f"decision log on/off, {rounds} paired rounds of {len(reqs):,} POSTs at 1 connection "
          f"({written:,} records written):")  # fmt: skip
    verdict = "met" if cost <= DECISION_BUDGET else "MISSED"
    print(f"  answers/s on/off: median {median:.3f} (IQR {q1:.3f}-{q3:.3f}, "
          f"min-max {min(ratios):.3f}-{max(ratios):.3f}); cost {cost:+.1%} "
          f"(budget {DECISION_BUDGET:.0%}: {verdict})")  # fmt: skip
    print(f"  hookd CPU per answer on/off: median {cmed:.3f} (IQR {c1:.3f}-{c3:.3f})")


def _rows(store: Path) -> int:
    import sqlite3

    conn = sqlite3.connect(store)
    try:
        return int(conn.execute("SELECT count(*) FROM decisions").fetchone()[0])
    finally:
        conn.close()


#: Interleaved rounds of the old-against-new comparison (``HOOKD_BENCH_BASE``).
BASE_ROUNDS = 7


def compare(base: Path, token: str, reqs: list[bytes]) -> None:
    """This checkout's hookd against ``base``'s, round by round at one connection."""
    base_hookd = (str(base / ".venv" / "bin" / "hookd"),)
    with tempfile.TemporaryDirectory(prefix="hookd-bench-http-") as tmp:
        new, new_port = start(Path(tmp) / "new", token)
        old, old_port = start(Path(tmp) / "old", token, base_hookd)
        try:
            drive(new_port, new.pid, reqs[:500], 1)
            drive(old_port, old.pid, reqs[:500], 1)
            pairs = [
                (drive(new_port, new.pid, reqs, 1), drive(old_port, old.pid, reqs, 1))
                for _ in range(BASE_ROUNDS)
            ]
        finally:
            for proc in (new, old):
                proc.terminate()
                proc.wait(timeout=30)
    print(f"this checkout against {base} at 1 connection, {BASE_ROUNDS} interleaved rounds:")
    for label, field_ in (("p50", "p50_ms"), ("CPU per answer", "hookd_cpu_us_per_answer")):
        ratios = sorted(getattr(a, field_) / getattr(b, field_) for a, b in pairs)
        print(f"  {label}: new/old median {ratios[len(ratios) // 2]:.2f}x "
              f"[{ratios[0]:.2f}-{ratios[-1]:.2f}]")  # fmt: skip


def report(runs: list[Run], out: Path, n: int) -> None:
    print(f"hookd serve --http: {n:,} PreToolUse POSTs per run, keep-alive, validation on")
    print(f"{'conns':>5} {'ans/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'hookd CPU us/ans':>17}")
    for r in runs:
        print(f"{r.connections:>5} {r.answers_per_s:>8,} {r.p50_ms:>7.3f} {r.p99_ms:>7.3f} "
              f"{r.hookd_cpu_us_per_answer:>17.1f}")  # fmt: skip
    one = runs[0]
    print(f"targets at 1 connection: p50 <= {TARGET_P50_MS} ms "
          f"({'met' if one.p50_ms <= TARGET_P50_MS else 'MISSED'}), p99 <= {TARGET_P99_MS} ms "
          f"({'met' if one.p99_ms <= TARGET_P99_MS else 'MISSED'})")  # fmt: skip
    out.parent.mkdir(parents=True, exist_ok=True)
    meta: dict[str, Any] = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "cores": os.cpu_count(),
        "load_1m": os.getloadavg()[0],
        "python": sys.version.split()[0],
    }
    out.write_text(json.dumps({"meta": meta, "runs": [asdict(r) for r in runs]}, indent=2) + "\n")


if __name__ == "__main__":
    sys.exit(main())
