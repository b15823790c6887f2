"""Instructions per answer under callgrind: a measure that does not depend on the machine's load.

``python -m bench.instructions`` runs the floor and hookd under ``valgrind
--tool=callgrind``, each twice (a short and a long run of the same kind), and
prints the difference in instructions divided by the difference in answers:
start-up and shutdown cancel out. Only user-space instructions are counted (not
the kernel's work in system calls), and valgrind runs the contender some 50x
slower, so at 1 in flight the next request is usually waiting by the time the
contender looks: that figure is "one pass of the event loop per request", not a
sleep and a wake-up.

``--http`` measures hookd's HTTP entrance the same way instead: ``hookd serve --http``
(and ``$HOOKD_BENCH_BASE``'s, when set) answering ``bench.http_server``'s PreToolUse POSTs
on one keep-alive connection, per POST.
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from bench import http_server
from bench.client import Contender
from bench.contenders import BASE, CONTENDERS, ENV, HOOKD, ROOT
from bench.workload import build_block

__all__ = ["instructions_per_answer", "instructions_per_post", "main"]

_TOTALS = re.compile(rb"^totals:\s+(\d+)", re.MULTILINE)


def _total(argv: Sequence[str], n: int, window: int, out: Path) -> int:
    """Instructions of one callgrind run of ``argv`` answering ``n`` requests."""
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *argv]
    contender = Contender(command, cwd=str(ROOT), cpus=None, env=ENV)
    try:
        handshake = contender.handshake(contender_sends_initialize=False, timeout_s=600)
        block = build_block(n, handshake.callback_id)
        contender.run(block, n, window, timeout_s=3600, latency=False)
    finally:
        contender.close()
    found = _TOTALS.search(out.read_bytes())
    if found is None:
        raise RuntimeError(f"no totals in {out}")
    return int(found.group(1))


def instructions_per_answer(argv: Sequence[str], window: int, short: int, long: int) -> float:
    """(instructions of ``long`` answers - of ``short`` answers) / (long - short)."""
    with tempfile.TemporaryDirectory() as tmp:
        _total(argv, 50, window, Path(tmp) / "compile.out")  # bytecode caches written first
        first = _total(argv, short, window, Path(tmp) / "short.out")
        second = _total(argv, long, window, Path(tmp) / "long.out")
    return (second - first) / (long - short)


def _http_total(hookd: str, posts: list[bytes], token: str, out: Path) -> int:
    """Instructions of one callgrind run of ``hookd serve --http`` answering ``posts``."""
    with tempfile.TemporaryDirectory() as tmp:
        command = ("valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", hookd)
        proc, port = http_server.start(Path(tmp), token, command)
        try:
            http_server.drive(port, proc.pid, posts, 1)
        finally:
            proc.terminate()
            proc.wait(timeout=600)
    found = _TOTALS.search(out.read_bytes())
    if found is None:
        raise RuntimeError(f"no totals in {out}")
    return int(found.group(1))


def instructions_per_post(hookd: str, short: int, long: int) -> float:
    """(instructions of ``long`` POSTs - of ``short`` POSTs) / (long - short), one connection."""
    token = secrets.token_hex(16)
    posts = http_server.requests(long, token)
    with tempfile.TemporaryDirectory() as tmp:
        first = _http_total(hookd, posts[:short], token, Path(tmp) / "short.out")
        second = _http_total(hookd, posts, token, Path(tmp) / "long.out")
    return (second - first) / (long - short)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.instructions", description=__doc__)
    parser.add_argument("--windows", type=int, nargs="+", default=[1, 64])
    parser.add_argument("--short", type=int, default=1_000)
    parser.add_argument("--long", type=int, default=3_000)
    parser.add_argument("--only", action="append", choices=[s.name for s in CONTENDERS])
    parser.add_argument("--http", action="store_true", help="hookd's HTTP entrance, per POST")
    args = parser.parse_args(argv)
    if args.http:
        hookds = [("hookd", HOOKD)]
        if BASE:
            hookds.append(("hookd-base", os.path.join(BASE, ".venv", "bin", "hookd")))
        for name, hookd in hookds:
            value = instructions_per_post(hookd, args.short // 4, args.long // 4)
            print(f"{name:<18} HTTP  {value:>10,.0f} instructions per POST")
            sys.stdout.flush()
        return 0
    names = args.only or ["floor", "hookd"]
    for spec in (s for s in CONTENDERS if s.name in names):
        for window in args.windows:
            value = instructions_per_answer(spec.argv, window, args.short, args.long)
            print(f"{spec.name:<18} W={window:<3} {value:>10,.0f} instructions per answer")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
