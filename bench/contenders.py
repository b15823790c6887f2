"""Who is measured: the contender table, the counts, and a spawner per contender.

Every contender is a real process on pipes, driven by the same client with the
same requests.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from bench.client import Contender, Handshake
from bench.workload import Block, build_block

__all__ = ["CONTENDERS", "ENV", "ROOT", "SLEEPER", "Counts", "Session", "Spec"]

ROOT: Final = Path(__file__).resolve().parent.parent
BENCH: Final = ROOT / "bench"
PYTHON: Final = sys.executable
HOOKD: Final = str(ROOT / ".venv" / "bin" / "hookd")
HANDSHAKE_TIMEOUT_S: Final = 30.0
# Contenders run as on a user's machine: bytecode caches on, stdio buffering default.
ENV: Final = {
    k: v
    for k, v in os.environ.items()
    if k not in {"PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "PYTHONPATH"}
}


@dataclass(frozen=True)
class Spec:
    name: str
    argv: tuple[str, ...]
    sends_initialize: bool = False  # the SDK sends initialize instead of answering it
    spawns_per_call: bool = False  # far fewer requests
    long_rss: bool = True  # takes part in the 1,000,000-request RSS run


@dataclass(frozen=True)
class Counts:
    rounds: int = 7  # interleaved rounds: floor, hookd, ..., floor, hookd, ...
    n: int = 5_000  # at 1 in flight, per round
    n64: int = 20_000  # at 64 in flight, per round
    one_core_n: int = 2_000  # at 1 in flight with the client on the contender's core, per round
    plot_n: int = 10_000  # at 4 and 16 in flight, once: points of the plot only
    windows: tuple[int, ...] = (1, 4, 16, 64)
    warmup: int = 2_000
    spawns: int = 9
    rss_first: int = 10_000
    rss_total: int = 1_000_000
    per_call_n: int = 300
    per_call_plot_n: int = 50
    sleepers: int = 1_000
    run_timeout_s: float = 240.0
    budget_s: float = 330.0  # the whole run; RSS runs are capped to fit

    def requests(self, spec: Spec, window: int = 1) -> int:
        """Requests in one measured run of ``spec`` at ``window`` in flight."""
        if spec.spawns_per_call:
            return self.per_call_n if window in (1, 64) else self.per_call_plot_n
        return {1: self.n, 64: self.n64}.get(window, self.plot_n)


#: ``HOOKD_BENCH_BASE=DIR`` (a checkout of another commit, with its own ``.venv``) adds that
#: commit's hookd as ``hookd-base``, measured in the same interleaved rounds: old against new.
BASE: Final = os.environ.get("HOOKD_BENCH_BASE")
_BASE_SPECS: Final = (
    (
        Spec(
            "hookd-base",
            (str(Path(BASE) / ".venv" / "bin" / "hookd"), "serve", str(BENCH / "hook_allow.py")),
            long_rss=False,
        ),
    )
    if BASE
    else ()
)

CONTENDERS: Final = (
    Spec("floor", (PYTHON, str(BENCH / "floor.py"))),
    Spec("trio-floor", (PYTHON, "-m", "bench.trio_floor"), long_rss=False),
    Spec("hookd", (HOOKD, "serve", str(BENCH / "hook_allow.py"))),
    Spec(
        "hookd-novalidate",
        (HOOKD, "serve", "--no-validate", str(BENCH / "hook_allow.py")),
        long_rss=False,
    ),
    Spec("sdk", (PYTHON, str(BENCH / "sdk_contender.py")), sends_initialize=True, long_rss=False),
    Spec(
        "command",
        (PYTHON, str(BENCH / "command_contender.py")),
        spawns_per_call=True,
        long_rss=False,
    ),
    *_BASE_SPECS,
)
SLEEPER: Final = Spec("hookd-sleep", (HOOKD, "serve", str(BENCH / "hook_sleep.py")))


@dataclass
class Session:
    """Spawns contenders for one spec, reusing request blocks per callback id."""

    spec: Spec
    cpus: set[int] | None
    blocks: dict[tuple[str, int], Block] = field(default_factory=dict)

    @contextmanager
    def spawn(self) -> Iterator[tuple[Contender, Handshake]]:
        contender = Contender(self.spec.argv, cwd=str(ROOT), cpus=self.cpus, env=ENV)
        try:
            handshake = contender.handshake(
                contender_sends_initialize=self.spec.sends_initialize,
                timeout_s=HANDSHAKE_TIMEOUT_S,
            )
            yield contender, handshake
        finally:
            contender.close()

    def block(self, handshake: Handshake, n: int) -> Block:
        key = (handshake.callback_id, n)
        if key not in self.blocks:
            self.blocks[key] = build_block(n, handshake.callback_id)
        return self.blocks[key]
