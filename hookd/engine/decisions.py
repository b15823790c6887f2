"""The decision log's writer: off the request path, woken only when there is something to write.

The handler calls :meth:`DecisionLog.note` with a small tuple (the call's
pieces, the verdict, the module version) that goes on a deque; nothing is
computed or encoded there. The first note after a write wakes the writer
thread (one queue put; the notes after it only append). The thread sleeps on
that queue, so an idle server never wakes for it; once woken it lets
:data:`GATHER_S` pass, so that a busy server's records go to disk in one
transaction a few times a second, not one per answer. It then reads each
verdict's decision (:mod:`hookd.decision.meaning`), counts it for ``GET
/status``, and writes the batch to the store. With OpenTelemetry export on
(:mod:`hookd.engine.otel`) it hands each answer to the exporter there too; a writer
with export and no store keeps no records.

A store that is not a database is moved aside (one error line) and a new one
made. A locked one keeps the records waiting, at most :data:`MAX_WAITING_BYTES`
of them (their text, the inputs mostly, and :data:`ROW_OVERHEAD_BYTES` each) and
:data:`MAX_WAITING`; past either the oldest are dropped and counted, and it is
tried again with the next batch. A store that cannot be written at all (a full
disk) drops the records with a count. Either says so in one error line when it
starts, one line when it first drops records, and one line with the count of the
burst when the store takes records again, never a line per record; the memory
of what waited is given back then (to the system too, on glibc). Answers never
wait for any of it.
"""

from __future__ import annotations

import collections
import json
import queue
import threading
import time
from typing import Any, Final, NamedTuple

import msgspec
import structlog

from hookd.decision.meaning import decision_of, failure_word
from hookd.decision.store import DecisionRow, Store, StoreError, move_aside
from hookd.engine.verdict import Ran, Verdict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hookd.engine.otel import Export

__all__ = ["GATHER_S", "MAX_WAITING", "MAX_WAITING_BYTES", "DecisionLog", "Noted"]

log = structlog.get_logger("hookd.decisions")

#: Records kept waiting while the store is locked; older ones are dropped past it.
MAX_WAITING: Final = 100_000
#: Bytes of records kept waiting while the store is locked (2,000 calls of 100 KB held
#: 198 MiB for the daemon's life when only the count was bounded); older ones go past it.
MAX_WAITING_BYTES: Final = 32 * 1024 * 1024
#: What a waiting record costs beside its text: the tuple, its numbers, the list's slot.
ROW_OVERHEAD_BYTES: Final = 256
#: Give freed memory back to the system (glibc's malloc_trim) once this much waited.
TRIM_BYTES: Final = 1024 * 1024
#: Seconds the woken writer lets pass before it writes what was noted meanwhile.
GATHER_S: Final = 0.2
#: Records turned into rows between two chances for the event loop to take the GIL.
CHUNK: Final = 16
_encoder: Final = msgspec.json.Encoder(enc_hook=repr)


class Noted(NamedTuple):
    """What the kernel notes per answer: references only, nothing computed."""

    when: float  # UNIX time
    event: str
    agent: str
    input: dict[str, Any]
    request_id: Any
    verdict: Verdict
    version: str  # the module version that answered
    redact: tuple[str, ...]  # its redaction patterns
    elapsed_ms: float


class DecisionLog:
    """One store, its writer thread, and the counts of what was decided.

    ``store`` is None when only ``export`` (OpenTelemetry, :mod:`hookd.engine.otel`) is
    wanted: the same thread then exports the answers and keeps no records.
    """

    def __init__(
        self, store: Store | None, module: str | None = None, export: Export | None = None
    ) -> None:
        self.store = store
        self.module = module
        self.export = export
        self.counts: dict[str, int] = {}
        self.shadow_counts: dict[str, int] = {}
        self.agent_counts: dict[str, dict[str, int]] = {}  # agent -> decision -> answers
        self.written = 0
        self.dropped = 0
        self.burst_dropped = 0  # dropped since the store last took records
        self.error: str | None = None
        self._noted: collections.deque[Noted] = collections.deque()
        self._woken = False
        self._wake: queue.SimpleQueue[bool] = queue.SimpleQueue()  # True: write; False: stop
        self._waiting: list[DecisionRow] = []
        self._waiting_bytes = 0  # held by _waiting (row_bytes)
        self._versions: set[str] = set()
        self._meta_items: dict[str, str] = {}  # written with the next batch
        self._thread: threading.Thread | None = None

    # -- the request path ---------------------------------------------------------------

    def note(self, noted: Noted) -> None:
        """Keep one answer's record for the writer: an append (and a wake-up, the first time
        after a write)."""
        self._noted.append(noted)
        if not self._woken:
            self._woken = True
            self._wake.put(True)

    # -- life ---------------------------------------------------------------------------

    def start(self) -> None:
        """Open the store (a damaged one is reported, and moved aside, now), then start the
        writer thread."""
        if self.store is not None:
            self._write([])
        self._thread = threading.Thread(target=self._run, name="hookd-decisions", daemon=True)
        self._thread.start()

    def close(self, timeout_s: float = 10.0) -> None:
        """Write what is left, then stop the writer thread."""
        if self._thread is not None:
            self._wake.put(False)
            self._thread.join(timeout_s)
            self._thread = None
        else:
            self._write(self._drain())
        if self.export is not None:
            self.export.close()
        if self.store is not None:
            self.store.close()

    def status(self) -> dict[str, Any] | None:
        """The ``decision_log`` object of ``GET /status``; None without a store."""
        if self.store is None:
            return None
        return {
            "path": self.store.path,
            "written": self.written,
            "waiting": len(self._waiting),
            "waiting_bytes": self._waiting_bytes,
            "max_waiting_bytes": MAX_WAITING_BYTES,
            "dropped": self.dropped,
            "error": self.error,
        }

    # -- the writer thread --------------------------------------------------------------

    def _run(self) -> None:
        while True:
            go_on = self._wake.get()
            if go_on:
                time.sleep(GATHER_S)
            self._write(self._drain())
            if not go_on:
                return

    def _drain(self) -> list[DecisionRow]:
        """The rows of everything noted so far (the next note wakes the writer again)."""
        self._woken = False
        rows: list[DecisionRow] = []
        noted = self._noted
        while noted:
            for _ in range(min(CHUNK, len(noted))):
                rows += self._rows(noted.popleft())
            time.sleep(0)  # let the event loop's thread have the GIL between chunks
        return rows

    def _rows(self, noted: Noted) -> list[DecisionRow]:
        when, event, agent, input_data, request_id, verdict, version, redact, elapsed_ms = noted
        if version not in self._versions:
            self._versions.add(version)
            self._meta(version, redact)
        session = input_data.get("session_id")
        tool = input_data.get("tool_name")
        session_id = session if isinstance(session, str) else None
        tool_name = tool if isinstance(tool, str) else None
        request = None if request_id is None else str(request_id)
        raw = _encoder.encode(input_data).decode()  # TEXT: JSON for any later reader
        hooks, decision, reason, failure = _main(verdict)
        main = DecisionRow(
            when, agent, session_id, event, tool_name, hooks, decision, reason, failure,
            round(elapsed_ms, 3), version, 0, request, raw,
        )  # fmt: skip
        rows = [main]
        self._count(self.counts, decision)
        self._count(self.agent_counts.setdefault(agent, {}), decision)
        if self.export is not None:
            self.export.answer(main, redact)
        for ran in verdict.shadow:
            would, reason = decision_of(ran.answer.payload)
            rows.append(
                main._replace(
                    hooks=ran.reg.name, decision=would, reason=reason,
                    failure=failure_word(ran.answer.outcome), elapsed_ms=ran.elapsed_ms, shadow=1,
                )
            )  # fmt: skip
            self._count(self.shadow_counts, would)
        return rows

    @staticmethod
    def _count(counts: dict[str, int], decision: str) -> None:
        counts[decision] = counts.get(decision, 0) + 1

    def _meta(self, version: str, redact: tuple[str, ...]) -> None:
        items = {f"redact:{version}": json.dumps(list(redact))}
        if self.module is not None:
            items["module"] = self.module
        self._meta_items.update(items)

    def _write(self, rows: list[DecisionRow]) -> None:
        if self.store is None:
            return
        waiting = self._waiting + rows
        if not waiting and self.error is not None:
            return  # nothing to write: no news of the store (a full disk is still full)
        try:
            self._store_rows(waiting)
        except StoreError as exc:
            self._failed(exc, waiting)
            return
        held = self._waiting_bytes
        self._waiting, self._waiting_bytes = [], 0
        self.written += len(waiting)
        del waiting, rows
        if self.error is not None:
            log.info(
                "decisions.store_recovered",
                path=self.store.path,
                dropped=self.burst_dropped,
                dropped_total=self.dropped,
            )
            self.error = None
        self.burst_dropped = 0
        if held >= TRIM_BYTES:
            _give_back()

    def _store_rows(self, rows: list[DecisionRow]) -> None:
        assert self.store is not None
        try:
            self._add(rows)
        except StoreError as exc:
            if exc.kind != "corrupt":
                raise
            self.store.close()
            moved = move_aside(self.store.path)
            log.error(
                "decisions.store_corrupt", path=self.store.path, moved_to=moved, error=str(exc)
            )
            self._add(rows)

    def _add(self, rows: list[DecisionRow]) -> None:
        assert self.store is not None
        self.store.open()
        if self._meta_items:
            self.store.set_meta(self._meta_items)
            self._meta_items = {}
        if rows:
            self.store.add(rows)

    def _failed(self, exc: StoreError, rows: list[DecisionRow]) -> None:
        assert self.store is not None
        first = self.error is None
        self.error = str(exc)
        if exc.kind == "locked":
            self._waiting, self._waiting_bytes = _bounded(rows)
        else:
            self._waiting, self._waiting_bytes = [], 0
        lost = len(rows) - len(self._waiting)
        first_loss = lost > 0 and self.burst_dropped == 0
        self.dropped += lost
        self.burst_dropped += lost
        if first:
            log.error(
                "decisions.store_unavailable",
                path=self.store.path,
                error=str(exc),
                waiting=len(self._waiting),
                waiting_bytes=self._waiting_bytes,
            )
        if first_loss:  # once per burst: the count of the burst comes with the recovery
            log.error(
                "decisions.records_dropped",
                path=self.store.path,
                error=str(exc),
                dropped=lost,
                waiting=len(self._waiting),
                max_waiting_bytes=MAX_WAITING_BYTES,
            )


def row_bytes(row: DecisionRow) -> int:
    """What a waiting row holds: its text (the input, mostly) and a fixed overhead."""
    return ROW_OVERHEAD_BYTES + sum(len(v) for v in row if isinstance(v, str))


def _bounded(rows: list[DecisionRow]) -> tuple[list[DecisionRow], int]:
    """The newest ``rows`` within :data:`MAX_WAITING` and :data:`MAX_WAITING_BYTES`, and
    their bytes: the oldest are the ones left out."""
    kept, total = 0, 0
    for row in reversed(rows):
        size = row_bytes(row)
        if kept == MAX_WAITING or total + size > MAX_WAITING_BYTES:
            break
        kept, total = kept + 1, total + size
    return rows[len(rows) - kept :], total


def _give_back() -> None:
    """Hand the heap's free memory back to the system (glibc; elsewhere nothing)."""
    import ctypes

    try:
        ctypes.CDLL(None).malloc_trim(0)  # the process's own symbols: libc's among them
    except (OSError, AttributeError):
        return


_NOTHING: Final = ("", "none", "", None)


def _main(verdict: Verdict) -> tuple[str, str, str, str | None]:
    """(hooks, decision, reason, failure) of the answer the agent got."""
    if not verdict.ran and verdict.problem is None:
        return _NOTHING  # no hook matched: the most common answer
    problem = verdict.problem
    if problem is not None:
        return "", "none", problem.message, problem.kind
    decision, reason = decision_of(verdict.output)
    ran = verdict.ran
    if len(ran) == 1 and not verdict.conflicts:  # one hook: it decided, or nothing did
        only = ran[0]
        failure = failure_word(only.answer.outcome) if only.answer.outcome != "ok" else None
        named = decision != "none" or failure is not None
        return (only.reg.name if named else ""), decision, reason, failure
    deciders = [ran for ran in verdict.ran if _decided(ran, decision)]
    failure = next((w for ran in verdict.ran if (w := failure_word(ran.answer.outcome))), None)
    if decision == "none":
        deciders = [ran for ran in verdict.ran if ran.answer.outcome != "ok"]
    elif not deciders:  # a conflict: every hook that voted
        deciders = [ran for ran in verdict.ran if ran.answer.payload]
    return ",".join(dict.fromkeys(ran.reg.name for ran in deciders)), decision, reason, failure


def _decided(ran: Ran, decision: str) -> bool:
    return decision_of(ran.answer.payload)[0] == decision
