"""The decision store: one SQLite file (WAL, mode 0600), bounded by size and by age.

One row per answer (:data:`COLUMNS`), the input the hooks saw kept raw (the file
is private to the user; what is shown is redacted by the reader). A ``meta``
table holds the module's path and each module version's own redaction patterns.
Past ``max_bytes`` (pages in use, indexes included) the oldest rows go first, down
to :data:`LOW_WATER` of it, and the file shrinks with them (incremental vacuum);
rows older than ``max_age_s`` go too. A later reader (``hookd log``, a what-if
replay) reads ``event``, ``agent``, ``input`` and ``version`` back as stored.

A file that is not a database is never deleted: :func:`move_aside` renames it
(with its WAL) to ``NAME.corrupt-YYYYmmddTHHMMSS`` and a new one is made.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sqlite3
import time
from collections.abc import Iterable, Sequence
from typing import Any, Final, Literal, NamedTuple

from hookd.decision import DEFAULT_MAX_AGE_DAYS, DEFAULT_MAX_BYTES
from hookd.errors import HookdError

__all__ = [
    "COLUMNS",
    "DecisionRow",
    "Store",
    "StoreError",
    "classify",
    "move_aside",
    "open_reader",
    "redaction_patterns",
]


class DecisionRow(NamedTuple):
    """One answer's record, in the store's column order (a tuple: SQLite takes it as is)."""

    time: float  # UNIX time of the answer
    agent: str
    session_id: str | None
    event: str
    tool: str | None
    hooks: str  # the names of the hooks that decided, comma-separated
    decision: str
    reason: str
    failure: str | None
    elapsed_ms: float
    version: str  # the module version that answered
    shadow: int  # 1: a shadow hook's would-be answer
    request_id: str | None
    input: str  # the input as JSON


COLUMNS: Final = DecisionRow._fields
SCHEMA_VERSION: Final = 1
#: Past this share of ``max_bytes`` in use, the oldest rows are dropped down to LOW_WATER.
HIGH_WATER: Final = 0.9
LOW_WATER: Final = 0.7
#: Seconds between two sweeps of rows past their age.
AGE_SWEEP_S: Final = 60.0
BUSY_TIMEOUT_S: Final = 1.0

#: No index beside the row id: records are appended in time order and read by id, and an
#: index on ``time`` made each insert dearer (the log cost 9 % of the HTTP path's answers/s
#: with it, 4 % without; ``bench.http_server --decision-log-only``). ``--since`` scans.
_SCHEMA: Final = f"""
CREATE TABLE IF NOT EXISTS decisions (
    id INTEGER PRIMARY KEY, time REAL NOT NULL, agent TEXT, session_id TEXT, event TEXT,
    tool TEXT, hooks TEXT, decision TEXT, reason TEXT, failure TEXT, elapsed_ms REAL,
    version TEXT, shadow INTEGER NOT NULL DEFAULT 0, request_id TEXT, input TEXT);

CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
PRAGMA user_version = {SCHEMA_VERSION};
"""
#: Rows bound at a time (the binding holds the GIL; the event loop waits meanwhile).
_SLICE: Final = 32
_INSERT: Final = (
    f"INSERT INTO decisions ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"
)

StoreProblem = Literal["missing", "corrupt", "locked", "unusable"]


class StoreError(HookdError):
    """The store cannot be used: ``kind`` says why (missing, corrupt, locked, unusable)."""

    def __init__(self, kind: StoreProblem, message: str) -> None:
        super().__init__(message)
        self.kind: StoreProblem = kind


def classify(exc: sqlite3.Error, path: str) -> StoreError:
    """A sqlite3 error as a :class:`StoreError` of the right kind, in one line: a full disk
    and an I/O error say so (with SQLite's own name for the error)."""
    text = str(exc)
    name = getattr(exc, "sqlite_errorname", None) or ""
    if name == "SQLITE_FULL" or "disk is full" in text:
        return StoreError("unusable", f"{path}: disk full: the decision store cannot grow ({text})")
    if name.startswith("SQLITE_IOERR") or "disk I/O error" in text:
        return StoreError(
            "unusable", f"{path}: I/O error writing the decision store ({name or text})"
        )
    if "locked" in text or "busy" in text:
        return StoreError("locked", f"{path}: the decision store is locked by another process")
    if isinstance(exc, sqlite3.OperationalError) and "not a database" not in text:
        return StoreError("unusable", f"{path}: {text}")
    return StoreError("corrupt", f"{path}: not a decision store ({text})")


def move_aside(path: str) -> str:
    """Rename a damaged store (and its WAL) out of the way; the new name of the file."""
    stamp = time.strftime("%Y%m%dT%H%M%S")
    target = f"{path}.corrupt-{stamp}"
    os.replace(path, target)
    for suffix in ("-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.replace(path + suffix, target + suffix)
    return target


def _connect(path: str, *, create: bool) -> sqlite3.Connection:
    if create and not os.path.lexists(path):  # made 0600 first; never through a link
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
    mode = "rwc" if create else "rw"
    return sqlite3.connect(
        f"file:{path}?mode={mode}",
        uri=True,
        timeout=BUSY_TIMEOUT_S,
        isolation_level=None,
        check_same_thread=False,
    )


class Store:
    """A store open for writing (one writer: the daemon's writer thread, or a test)."""

    def __init__(
        self,
        path: str,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        max_age_s: float = DEFAULT_MAX_AGE_DAYS * 86400,
    ) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.max_age_s = max_age_s
        self._conn: sqlite3.Connection | None = None
        self._swept = 0.0

    def open(self) -> None:
        """Open (or make) the store; :class:`StoreError` when it cannot be used as it is."""
        if self._conn is not None:
            return
        if os.path.islink(self.path):  # SQLite would follow it, and write where it points
            raise StoreError("unusable", f"{self.path}: a symbolic link; the store is not "
                             "written through a link hookd did not make")  # fmt: skip
        try:
            conn = _connect(self.path, create=True)
        except sqlite3.Error as exc:
            raise classify(exc, self.path) from None
        except OSError as exc:  # the file cannot be made (a full disk, a link, no folder)
            raise StoreError("unusable", f"{self.path}: {exc.strerror or exc}") from None
        try:
            conn.execute("PRAGMA auto_vacuum = INCREMENTAL")  # before the first table only
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            limit = max(64 * 1024, min(self.max_bytes // 8, 4 * 1024 * 1024))
            conn.execute(f"PRAGMA journal_size_limit = {limit}")
            conn.execute(f"PRAGMA wal_autocheckpoint = {max(16, limit // 4096)}")
            conn.executescript(_SCHEMA)
        except sqlite3.Error as exc:
            conn.close()
            raise classify(exc, self.path) from None
        self._conn = conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def add(self, rows: Sequence[tuple[Any, ...]]) -> None:
        """Insert ``rows`` (in :data:`COLUMNS` order) in one transaction, then keep the bounds."""
        conn = self._open()
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                for start in range(0, len(rows), _SLICE):
                    conn.executemany(_INSERT, rows[start : start + _SLICE])
                    time.sleep(0)  # the GIL back to the event loop between slices
                conn.execute("COMMIT")
            except BaseException:
                _rollback(conn)  # the error raised, not the rollback's: SQLite may have done it
                raise
            self._keep_bounds(conn)
        except sqlite3.Error as exc:
            raise classify(exc, self.path) from None

    def set_meta(self, items: dict[str, str]) -> None:
        conn = self._open()
        try:
            conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", list(items.items()))
        except sqlite3.Error as exc:
            raise classify(exc, self.path) from None

    def _open(self) -> sqlite3.Connection:
        self.open()
        assert self._conn is not None
        return self._conn

    def _keep_bounds(self, conn: sqlite3.Connection) -> None:
        now = time.time()
        if now - self._swept > AGE_SWEEP_S:
            self._swept = now
            conn.execute("DELETE FROM decisions WHERE time < ?", (now - self.max_age_s,))
        used = used_bytes(conn)
        if used <= self.max_bytes * HIGH_WATER:
            return
        low, high = conn.execute("SELECT min(id), max(id) FROM decisions").fetchone()
        if low is None:
            return
        share = 1 - self.max_bytes * LOW_WATER / used
        drop = max(1, math.ceil((high - low + 1) * share))
        conn.execute("DELETE FROM decisions WHERE id < ?", (low + drop,))
        conn.execute("PRAGMA incremental_vacuum")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def _rollback(conn: sqlite3.Connection) -> None:
    """Roll back the open transaction, if SQLite has not already (it does on a full disk: a
    ROLLBACK then fails with "no transaction is active", hiding the real error)."""
    if conn.in_transaction:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")


def used_bytes(conn: sqlite3.Connection) -> int:
    """Bytes of the pages in use (tables and indexes), free pages left out."""
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    free = conn.execute("PRAGMA freelist_count").fetchone()[0]
    return int((pages - free) * page_size)


def open_reader(path: str) -> sqlite3.Connection:
    """The store at ``path`` to read; :class:`StoreError` (missing, corrupt, locked) else."""
    if not os.path.exists(path):
        raise StoreError("missing", f"{path}: no decisions recorded yet")
    try:
        conn = _connect(path, create=False)
        conn.row_factory = sqlite3.Row
        conn.execute("SELECT 1 FROM decisions LIMIT 1").fetchall()
    except sqlite3.Error as exc:
        raise classify(exc, path) from None
    return conn


def redaction_patterns(conn: sqlite3.Connection) -> list[str]:
    """Every redaction pattern the module's versions stored (``meta`` ``redact:VERSION``)."""
    found: list[str] = []
    for (value,) in conn.execute("SELECT value FROM meta WHERE key LIKE 'redact:%'"):
        try:
            patterns = json.loads(value)
        except ValueError:
            continue
        found += [p for p in patterns if isinstance(p, str) and p not in found]
    return found


def rows_of(records: Iterable[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """Records as :data:`COLUMNS`-ordered tuples (tests and tools that write synthetic rows)."""
    return [tuple(record.get(column) for column in COLUMNS) for record in records]
