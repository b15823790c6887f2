"""The decision log: one record per answer hookd gives, kept in a private SQLite file.

:mod:`hookd.decision.meaning` reads what an output decides; :mod:`hookd.decision.store`
keeps the records (bounded by size and age) and reads them back for ``hookd log``.
The request handler's side (a buffer, a writer thread) is :mod:`hookd.engine.decisions`.
Nothing here imports ``sqlite3`` until a store is opened, and this module imports nothing
(``hookd up`` names the store on its fast path).
"""

__all__ = [
    "DECISIONS",
    "DEFAULT_MAX_AGE_DAYS",
    "DEFAULT_MAX_BYTES",
    "MAX_AGE_ENV",
    "MAX_BYTES_ENV",
    "STORE_NAME",
]

#: The file name of a module's store, in its state directory.
STORE_NAME = "decisions.sqlite3"
DEFAULT_MAX_BYTES = 50 * 1024 * 1024
DEFAULT_MAX_AGE_DAYS = 30.0
#: Environment defaults of ``--decision-log-max-bytes`` / ``--decision-log-max-days``.
MAX_BYTES_ENV = "HOOKD_DECISION_LOG_MAX_BYTES"
MAX_AGE_ENV = "HOOKD_DECISION_LOG_MAX_DAYS"
#: Every decision a record may carry.
DECISIONS = ("allow", "deny", "ask", "rewrite", "context", "none")
