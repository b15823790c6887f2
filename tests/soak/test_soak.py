"""A bounded soak through the real process: many requests, faults, cancels, flat resources.

20,000 requests in ``make test``; 1,000,000 under ``make soak``
(``HOOKD_SOAK_LONG=1``). 64 requests are kept in flight, 5 % of them go to the
faulty hooks of ``tests/hooks/faults/soak_mix.py``, 1 % go to a hook that
never returns and are cancelled, 1 % are cancelled as soon as they are sent
(racing their answer). Some requests use JSON-RPC framing.

Checked: every request not cancelled is answered exactly once and correctly;
a request to the never-returning hook is never answered; a raced one at most
once; no answer names an id that was not sent. The run is cut in ten phases;
after each, the client waits until every answer is in and reads the
process's RSS, file descriptors and threads from ``/proc`` once the threads the
phase's faults started have ended. Phase 1 is the
warm-up; later phases must stay within a tolerance of it.
"""

from __future__ import annotations

import itertools
import os
import random
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, NamedTuple

import msgspec
import pytest
import trio

from hookd.engine.executor import THREAD_LIMIT
from tests.faults.faultkit import Hookd, Usage, fault_module, print_figures, running
from tests.hooks.faults.soak_mix import FAULT_TIMEOUT_S, OUTPUT_BYTES
from tests.peer import pre_tool_use

LONG: Final = os.environ.get("HOOKD_SOAK_LONG") == "1"
REQUESTS: Final = 1_000_000 if LONG else 20_000
IN_FLIGHT: Final = 64
BATCH: Final = 16
PHASES: Final = 10 if LONG else 5
SEED: Final = 20_251_122
#: After a phase, until the threads its faults started have ended (a blocked hook sleeps 3x
#: its timeout; a leaked thread its timeout): the usage read then is what stays, not what
#: happened to be running at that instant, which on a loaded machine is much more.
SETTLE_S: Final = 3 * FAULT_TIMEOUT_S + 0.2

#: Fault hooks of soak_mix.py with their relative weight and the answer they must get.
FAULTS: Final[dict[str, tuple[float, str]]] = {
    "Raise": (8, "deny:failed"),
    "RaiseThread": (6, "deny:failed"),
    "RaiseAsyncio": (6, "deny:failed"),
    "RaiseEmpty": (6, "deny:failed"),
    "Exit": (5, "deny:failed"),
    "ExitThread": (5, "deny:failed"),
    "Interrupt": (5, "deny:failed"),
    "InterruptThread": (5, "deny:failed"),
    "Recurse": (1, "deny:failed"),  # formatting its traceback costs ~60 ms
    "RecurseThread": (1, "deny:failed"),
    "Block": (8, "deny:timed out"),
    "Spin": (0.1, "deny:timed out"),  # holds the whole event loop for 0.2 s: kept rare
    "Print": (5, "allow:printed"),
    "Unserialisable": (8, "deny:invalid output"),
    "BigOutput": (1, "allow:big"),
    "LeakThread": (6, "allow:leaked"),
}
HEALTHY: Final = {"Ok": 80.0, "OkThread": 10.0, "OkAsyncio": 10.0}

Key = tuple[str, Any]  # (framing, request id)


@dataclass(frozen=True, slots=True)
class Request:
    key: Key
    matcher: str
    line: bytes
    cancel: bytes | None = None  # its cancel, sent with the next batch
    must_answer: bool = True


class Sent(NamedTuple):
    """What the ledger keeps of a request (not its bytes)."""

    matcher: str
    must_answer: bool


def plan(count: int, ids: dict[str, str], rng: random.Random) -> Iterator[Request]:
    """The traffic: healthy, faulty, cancelled-for-sure and raced requests."""
    faults = list(FAULTS)
    fault_weights = [w for w, _ in FAULTS.values()]
    for n in range(count):
        roll = rng.random()
        if roll < 0.05:
            matcher = rng.choices(faults, fault_weights)[0]
        elif roll < 0.06:
            matcher = "Hang"
        else:
            matcher = rng.choices(list(HEALTHY), list(HEALTHY.values()))[0]
        rpc = rng.random() < 0.1
        cancel = matcher == "Hang" or 0.06 <= roll < 0.07
        yield _request(n, matcher, ids[matcher], rpc=rpc, cancel=cancel)


def _request(n: int, matcher: str, callback_id: str, *, rpc: bool, cancel: bool) -> Request:
    input_data = pre_tool_use(matcher)
    if rpc:
        params = {"callback_id": callback_id, "input": input_data}
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": n, "method": "hook_callback"}
        body["params"] = params
        stop: dict[str, Any] = {"jsonrpc": "2.0", "method": "$/cancelRequest"}
        stop["params"] = {"id": n}
        key: Key = ("jsonrpc", n)
    else:
        rid = f"s{n}"
        request = {"subtype": "hook_callback", "callback_id": callback_id, "input": input_data}
        body = {"type": "control_request", "request_id": rid, "request": request}
        stop = {"type": "control_cancel_request", "request_id": rid}
        key = ("control", rid)
    line = msgspec.json.encode(body) + b"\n"
    cancel_line = msgspec.json.encode(stop) + b"\n" if cancel else None
    return Request(key, matcher, line, cancel_line, must_answer=not cancel)


def label(msg: Any) -> tuple[Key, str]:
    """An answer's request key and what it says, in the words of ``FAULTS``."""
    if "jsonrpc" in msg:
        key: Key = ("jsonrpc", msg["id"])
        result = msg.get("result")
    else:
        resp = msg["response"]
        key = ("control", resp["request_id"])
        result = resp.get("response") if resp["subtype"] == "success" else None
    if not isinstance(result, dict) or "hookSpecificOutput" not in result:
        return key, f"other:{str(msg)[:200]}"
    specific = result["hookSpecificOutput"]
    return key, f"{specific['permissionDecision']}:{_reason(specific['permissionDecisionReason'])}"


def _reason(text: str) -> str:
    names = {"timed out": "timed out", "returned an invalid output": "invalid output"}
    names["raised an exception"] = "failed"
    for words, name in names.items():
        if words in text:
            return name
    return "big" if len(text) == OUTPUT_BYTES else text


@dataclass
class Ledger:
    """Every request sent and every answer seen."""

    sent: dict[Key, Sent] = field(default_factory=dict)
    answers: Counter[Key] = field(default_factory=Counter)
    wrong: list[str] = field(default_factory=list)
    outstanding: int = 0
    idle: trio.Event = field(default_factory=trio.Event)

    def on_sent(self, request: Request) -> None:
        self.sent[request.key] = Sent(request.matcher, request.must_answer)
        if request.must_answer:
            self.outstanding += 1
            self.idle = trio.Event()

    def on_answer(self, msg: Any) -> bool:
        """Record one answer; True if it frees an in-flight slot."""
        key, said = label(msg)
        self.answers[key] += 1
        request = self.sent.get(key)
        if request is None:
            self.wrong.append(f"answer for a request never sent: {str(msg)[:200]}")
            return False
        expected = FAULTS[request.matcher][1] if request.matcher in FAULTS else "allow:ok"
        if said != expected:
            self.wrong.append(f"{key} ({request.matcher}) answered {said!r}, not {expected!r}")
        if not request.must_answer or self.answers[key] > 1:
            return False
        self.outstanding -= 1
        if self.outstanding == 0:
            self.idle.set()
        return True

    def verdict(self) -> dict[str, int]:
        """The figures; ``lost`` and ``duplicated`` must be 0."""
        must = [k for k, r in self.sent.items() if r.must_answer]
        hangs = [k for k, r in self.sent.items() if r.matcher == "Hang"]
        raced = [k for k, r in self.sent.items() if not r.must_answer and r.matcher != "Hang"]
        return {
            "sent": len(self.sent),
            "answered": sum(1 for k in must if self.answers[k] == 1),
            "faulty": sum(1 for r in self.sent.values() if r.matcher in FAULTS),
            "cancelled (never answered)": sum(1 for k in hangs if self.answers[k] == 0),
            "cancel raced: answered": sum(1 for k in raced if self.answers[k] == 1),
            "cancel raced: withdrawn": sum(1 for k in raced if self.answers[k] == 0),
            "lost": sum(1 for k in must if self.answers[k] == 0),
            "duplicated": sum(1 for n in self.answers.values() if n > 1),
            "answered though cancelled": sum(1 for k in hangs if self.answers[k] > 0),
            "wrong answers": len(self.wrong),
        }


class Window:
    """Room for ``IN_FLIGHT`` requests; the sender waits for ``BATCH`` free slots."""

    def __init__(self) -> None:
        self.used = 0
        self._room = trio.Event()

    def take(self) -> None:
        self.used += 1
        if self.used > IN_FLIGHT - BATCH:
            self._room = trio.Event()

    def give(self) -> None:
        self.used -= 1
        if self.used <= IN_FLIGHT - BATCH:
            self._room.set()

    async def wait(self) -> int:
        """Wait for room; return how many requests fit."""
        if self.used > IN_FLIGHT - BATCH:
            await self._room.wait()
        return IN_FLIGHT - self.used


async def receive(hookd: Hookd, ledger: Ledger, window: Window) -> None:
    """Read answers until hookd closes stdout."""
    decode = msgspec.json.Decoder().decode
    while not hookd.out.eof:
        for line in await hookd.out.available():
            if ledger.on_answer(decode(line)):
                window.give()


async def send(hookd: Hookd, requests: Iterator[Request], ledger: Ledger, window: Window) -> None:
    """Keep up to ``IN_FLIGHT`` requests in flight, written in batches.

    The cancels of a batch go out with the next one, so a raced request may or
    may not have been answered by then.
    """
    cancels: list[bytes] = []
    while True:
        room = await window.wait()
        chunk = list(itertools.islice(requests, room))
        lines, cancels = cancels, []
        for request in chunk:
            ledger.on_sent(request)
            lines.append(request.line)
            if request.cancel is None:
                window.take()
            else:
                cancels.append(request.cancel)
        if len(chunk) < room:  # this phase's requests are all out
            await hookd.send(b"".join(lines + cancels))
            return
        await hookd.send(b"".join(lines))


async def drained(ledger: Ledger) -> None:
    with trio.fail_after(60):
        if ledger.outstanding:
            await ledger.idle.wait()


def report(ledger: Ledger, usages: list[Usage], elapsed_s: float) -> str:
    figures = ledger.verdict()
    lines = [
        f"soak: {figures['sent']:,} requests in {elapsed_s:.1f}s "
        f"({figures['sent'] / elapsed_s:,.0f}/s), {IN_FLIGHT} in flight"
    ]
    lines += [f"  {name}: {value:,}" for name, value in figures.items()]
    lines += [f"  after phase {i + 1}: {u}" for i, u in enumerate(usages)]
    return "\n".join(lines)


@pytest.mark.req("R-035", "R-040", "R-070", "R-072", "R-127")
async def test_soak(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    ledger = Ledger()
    usages: list[Usage] = []
    hooks = fault_module("soak_mix")
    async with running(hooks, tmp_path, "--log-level", "error", stderr=False) as hookd:
        found = await hookd.callback_ids()
        ids = {key.split("/")[1]: callback_ids[0] for key, callback_ids in found.items()}
        traffic = plan(REQUESTS, ids, random.Random(SEED))
        started = time.monotonic()
        with trio.fail_after(900 if LONG else 120):
            await run_phases(hookd, traffic, ledger, usages)
        elapsed = time.monotonic() - started
    print_figures(request.config, report(ledger, usages, elapsed))
    check(ledger, usages)


async def run_phases(
    hookd: Hookd, traffic: Iterator[Request], ledger: Ledger, usages: list[Usage]
) -> None:
    """Send the traffic in phases; after each, wait for every answer and read /proc."""
    window = Window()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(receive, hookd, ledger, window)
        for _ in range(PHASES):
            await send(hookd, itertools.islice(traffic, REQUESTS // PHASES), ledger, window)
            await drained(ledger)
            await trio.sleep(SETTLE_S)
            usages.append(hookd.usage())
        await hookd.close_stdin()
        assert await hookd.exit_code(30) == 0


def check(ledger: Ledger, usages: list[Usage]) -> None:
    figures = ledger.verdict()
    assert ledger.wrong[:5] == []
    for name in ("lost", "duplicated", "answered though cancelled", "wrong answers"):
        assert figures[name] == 0, name
    warm, early, last = usages[0], usages[: len(usages) // 2], usages[-1]
    rss_allowance = max(24 * 1024, warm.rss_kib // 4)
    assert max(u.rss_kib for u in usages[1:]) - warm.rss_kib < rss_allowance, "RSS grows"
    assert max(u.fds for u in usages[1:]) <= warm.fds + 2, "file descriptors grow"
    # idle worker threads linger for a while and abandoned ones end late: compare
    # with the early phases, and stay below the worker limit plus hookd's own threads
    assert last.threads <= max(u.threads for u in early) + 16, "threads grow"
    assert max(u.threads for u in usages) <= THREAD_LIMIT + 24, "threads unbounded"
