"""What ``hookd uninstall`` does with a module's decision log: keep it, or, with ``--purge``,
remove it with the rest of the module's state, and say which.

The decision log is the history of every answer (``hookd log``) and the input of
``hookd whatif``: an uninstall followed by an install keeps it. A store that holds no
record, or none that can be read as a store, is no history: it goes with the rest,
unless it cannot be read at all (locked, damaged), in which case it is kept.
"""

from __future__ import annotations

import sqlite3

from hookd.daemon.paths import DaemonPaths, forget
from hookd.decision.store import StoreError, open_reader

__all__ = ["forget_module", "record_count"]


def record_count(paths: DaemonPaths) -> int | None:
    """How many records the module's decision log holds: None without one, -1 when it cannot
    be read (locked, damaged)."""
    if not paths.decisions.exists():
        return None
    try:
        conn = open_reader(str(paths.decisions))
        try:
            return int(conn.execute("SELECT count(*) FROM decisions").fetchone()[0])
        finally:
            conn.close()
    except (StoreError, sqlite3.Error, OSError):
        return -1


def forget_module(paths: DaemonPaths, hooks: str, *, purge: bool) -> str | None:
    """Remove the module's state (its daemon stopped); the line that says what became of the
    decision log, or None when there was none to speak of."""
    count = record_count(paths)
    had_state = paths.state_dir.exists()
    if purge:
        forget(paths)
        if not had_state:
            return None
        if count is None or count == 0:
            return f"hookd: --purge: removed the module's state ({paths.state_dir})"
        held = "" if count < 0 else f" ({_records(count)})"
        return (
            f"hookd: --purge: removed the decision log{held} and the rest of the module's state "
            f"({paths.state_dir})"
        )
    keep = count is not None and count != 0
    forget(paths, keep_decisions=keep)
    if not keep:
        return None
    held = "" if count is None or count < 0 else f"{_records(count)}, "
    return (
        f"hookd: the decision log is kept ({held}`hookd log {hooks}` reads it, "
        f"`hookd uninstall --purge {hooks}` removes it): {paths.decisions}"
    )


def _records(count: int) -> str:
    return f"{count} record{'' if count == 1 else 's'}"
