"""The decision log's writer: off the request path, woken only when there is something to write.

The handler calls :meth:`DecisionLog.note` with a small tuple (the call's
pieces, the verdict, the module version) that goes on a list; nothing is
computed or encoded there. When the trio loop is about to wait (an
instrument's ``before_io_wait``, as :mod:`hookd.logs` does for log lines), the
list is handed to a writer thread through a queue; the thread sleeps on that
queue, so an idle server never wakes for it. The thread reads each verdict's
decision (:mod:`hookd.decision.meaning`), counts it for ``GET /status``, and
writes the batch to the store in one transaction.

A store that is not a database is moved aside (one error line) and a new one
made. A locked one keeps the records waiting (at most :data:`MAX_WAITING`;
the excess is dropped and counted, one line) and is tried again with the next
batch; a store that cannot be written at all drops the records with a count.
Answers never wait for any of it.
"""

from __future__ import annotations

import json
import queue
import threading
from typing import Any, Final

import msgspec
import structlog
import trio

from hookd.decision.meaning import decision_of, failure_word
from hookd.decision.store import Store, StoreError, move_aside
from hookd.engine.verdict import Ran, Verdict

__all__ = ["MAX_WAITING", "DecisionLog", "Noted"]

log = structlog.get_logger("hookd.decisions")

#: Records kept waiting while the store is locked; older ones are dropped past it.
MAX_WAITING: Final = 100_000
_encoder: Final = msgspec.json.Encoder(enc_hook=repr)

#: (UNIX time, event, agent, input, request id, verdict, module version, redaction
#: patterns, elapsed ms): what the handler notes per answer.
Noted = tuple[
    float, str, str, dict[str, Any], Any, Verdict, str, tuple[str, ...], float
]  # fmt: skip


class DecisionLog:
    """One store, its writer thread, and the counts of what was decided."""

    def __init__(self, store: Store, module: str | None = None) -> None:
        self.store = store
        self.module = module
        self.counts: dict[str, int] = {}
        self.shadow_counts: dict[str, int] = {}
        self.written = 0
        self.dropped = 0
        self.error: str | None = None
        self._batch: list[Noted] = []
        self._queue: queue.SimpleQueue[list[Noted] | None] = queue.SimpleQueue()
        self._waiting: list[tuple[Any, ...]] = []
        self._versions: set[str] = set()
        self._meta_items: dict[str, str] = {}  # written with the next batch
        self._loop_thread: int | None = None
        self._thread: threading.Thread | None = None

    # -- the request path ---------------------------------------------------------------

    def note(self, noted: Noted) -> None:
        """Keep one answer's record for the writer (a list append on the loop's thread)."""
        self._batch.append(noted)
        if threading.get_ident() != self._loop_thread:
            self.flush()

    def flush(self) -> None:
        """Hand the noted records to the writer thread."""
        if self._batch:
            batch, self._batch = self._batch, []
            self._queue.put(batch)

    # -- life ---------------------------------------------------------------------------

    def start(self) -> None:
        """Open the store (a damaged one is reported, and moved aside, now), then start the
        writer thread."""
        self._write([])
        self._thread = threading.Thread(target=self._run, name="hookd-decisions", daemon=True)
        self._thread.start()

    def attach(self) -> None:
        """Hand records over each time the running trio loop is about to wait (call in it)."""
        self._loop_thread = threading.get_ident()
        trio.lowlevel.add_instrument(_Handover(self))

    def close(self, timeout_s: float = 10.0) -> None:
        """Write what is left, then stop the writer thread."""
        self.flush()
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout_s)
            self._thread = None
        self.store.close()

    def status(self) -> dict[str, Any]:
        """The ``decision_log`` object of ``GET /status``."""
        return {
            "path": self.store.path,
            "written": self.written,
            "waiting": len(self._waiting),
            "dropped": self.dropped,
            "error": self.error,
        }

    # -- the writer thread --------------------------------------------------------------

    def _run(self) -> None:
        while True:
            batches = [self._queue.get()]
            while True:
                try:
                    batches.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            rows = [
                row for batch in batches if batch for noted in batch for row in self._rows(noted)
            ]
            self._write(rows)
            if None in batches:
                return

    def _rows(self, noted: Noted) -> list[tuple[Any, ...]]:
        when, event, agent, input_data, request_id, verdict, version, redact, elapsed_ms = noted
        if version not in self._versions:
            self._versions.add(version)
            self._meta(version, redact)
        session = input_data.get("session_id")
        tool = input_data.get("tool_name")
        head = (
            when,
            agent,
            session if isinstance(session, str) else None,
            event,
            tool if isinstance(tool, str) else None,
        )
        request = None if request_id is None else str(request_id)
        raw = _encoder.encode(input_data).decode()
        rows = [(*head, *_main(verdict), round(elapsed_ms, 3), version, 0, request, raw)]
        self._count(self.counts, rows[0][6])
        for ran in verdict.shadow:
            decision, reason = decision_of(ran.answer.payload)
            failure = failure_word(ran.answer.outcome)
            rows.append(
                (*head, ran.reg.name, decision, reason, failure, ran.elapsed_ms, version, 1,
                 request, raw)
            )  # fmt: skip
            self._count(self.shadow_counts, decision)
        return rows

    @staticmethod
    def _count(counts: dict[str, int], decision: str) -> None:
        counts[decision] = counts.get(decision, 0) + 1

    def _meta(self, version: str, redact: tuple[str, ...]) -> None:
        items = {f"redact:{version}": json.dumps(list(redact))}
        if self.module is not None:
            items["module"] = self.module
        self._meta_items.update(items)

    def _write(self, rows: list[tuple[Any, ...]]) -> None:
        waiting = self._waiting + rows
        try:
            self._store_rows(waiting)
        except StoreError as exc:
            self._failed(exc, waiting)
            return
        self._waiting = []
        self.written += len(waiting)
        if self.error is not None:
            log.info("decisions.store_recovered", path=self.store.path, written=len(waiting))
            self.error = None

    def _store_rows(self, rows: list[tuple[Any, ...]]) -> None:
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

    def _add(self, rows: list[tuple[Any, ...]]) -> None:
        self.store.open()
        if self._meta_items:
            self.store.set_meta(self._meta_items)
            self._meta_items = {}
        if rows:
            self.store.add(rows)

    def _failed(self, exc: StoreError, rows: list[tuple[Any, ...]]) -> None:
        first = self.error is None
        self.error = str(exc)
        if exc.kind == "locked":
            self._waiting = rows[-MAX_WAITING:]
            lost = len(rows) - len(self._waiting)
        else:
            self._waiting, lost = [], len(rows)
        self.dropped += lost
        if first or lost:
            log.error(
                "decisions.store_unavailable",
                path=self.store.path,
                error=str(exc),
                waiting=len(self._waiting),
                dropped=self.dropped,
            )


def _main(verdict: Verdict) -> tuple[str, str, str, str | None]:
    """(hooks, decision, reason, failure) of the answer the agent got."""
    problem = verdict.problem
    if problem is not None:
        return "", "none", problem.message, problem.kind
    decision, reason = decision_of(verdict.output)
    deciders = [ran for ran in verdict.ran if _decided(ran, decision)]
    failure = next((w for ran in verdict.ran if (w := failure_word(ran.answer.outcome))), None)
    if decision == "none":
        deciders = [ran for ran in verdict.ran if ran.answer.outcome != "ok"]
    elif not deciders:  # a conflict: every hook that voted
        deciders = [ran for ran in verdict.ran if ran.answer.payload]
    return ",".join(dict.fromkeys(ran.reg.name for ran in deciders)), decision, reason, failure


def _decided(ran: Ran, decision: str) -> bool:
    return decision_of(ran.answer.payload)[0] == decision


class _Handover(trio.abc.Instrument):
    """Hands the noted records to the writer before the loop waits, and when it ends."""

    def __init__(self, decisions: DecisionLog) -> None:
        self.decisions = decisions

    def before_io_wait(self, timeout: float) -> None:
        if self.decisions._batch:
            self.decisions.flush()

    def after_run(self) -> None:
        self.decisions.flush()
        self.decisions._loop_thread = None
