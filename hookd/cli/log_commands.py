"""``hookd log [HOOKS]``: the decision log as a table, JSON lines, or one answer explained.

Reads the module's store (:mod:`hookd.decision.store`) while the daemon writes
it (WAL: readers never block the writer). Every input and reason shown is
redacted (:mod:`hookd.redact`, plus the patterns the module's versions stored), and
what a human reads has its control characters escaped (``--json`` is JSON's own).
``--follow`` polls the store by row id every half second.
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from hookd.daemon.here import belongs, current_project
from hookd.daemon.paths import PathError, daemon_paths, known_stores, module_path
from hookd.decision.store import StoreError, classify, open_reader, redaction_patterns
from hookd.errors import HookdError
from hookd.redact import Redactor, escape_controls

__all__ = ["LogError", "log_main", "parse_since", "store_path"]

FOLLOW_S: Final = 0.5
REASON_CHARS: Final = 60
_FIELDS: Final = (
    "id, time, agent, session_id, event, tool, hooks, decision, reason, failure, "
    "elapsed_ms, version, shadow, request_id"
)
_UNITS: Final = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_RELATIVE: Final = re.compile(r"^(\d+(?:\.\d+)?)([smhd])$")


class LogError(HookdError):
    """A one-line reason ``hookd log`` (or ``hookd whatif``) cannot answer."""


def _fail(message: object) -> int:
    print(escape_controls(f"hookd log: error: {message}"), file=sys.stderr)
    return 1


def parse_since(text: str, now: float | None = None) -> float:
    """``1h``, ``30m``, ``2d``, ``45s`` ago, or a local ISO date/time; UNIX seconds."""
    now = time.time() if now is None else now
    match = _RELATIVE.match(text.strip())
    if match:
        return now - float(match.group(1)) * _UNITS[match.group(2)]
    try:
        return datetime.fromisoformat(text.strip()).timestamp()
    except ValueError:
        raise LogError(f"--since: {text!r} is neither 1h/30m/2d nor a date such as "
                       "2026-11-26T10:00") from None  # fmt: skip


def store_path(hooks: str | None) -> Path:
    """The store of ``hooks``; without it, the store of the project the user is in (as
    ``hookd install`` finds it), else the one module's that has one; :class:`LogError` else."""
    if hooks is not None:
        path = daemon_paths(module_path(hooks), create=False).decisions
        if not path.exists():
            raise LogError(f"{hooks}: no decisions recorded yet (its daemon writes them: "
                           "`hookd up`, or `hookd serve --decision-log`)")  # fmt: skip
        return path
    stores = known_stores()
    if not stores:
        raise LogError("no decisions recorded yet (no daemon has kept a decision log)")
    root = current_project()
    modules = {store: _module_of(store) for store in stores}
    mine = [store for store, module in modules.items() if belongs(Path(module), root)]
    if len(mine) == 1:
        return mine[0]
    if len(mine) > 1:
        named = ", ".join(modules[s] for s in mine)
        raise LogError(f"several modules of {root} have decision logs; name one: {named}")
    if len(stores) == 1:  # not this project's: a user-scope module, say
        return stores[0]
    named = ", ".join(modules.values())
    raise LogError(f"no module of {root} has a decision log; name one: {named}")


def _module_of(store: Path) -> str:
    try:
        conn = open_reader(str(store))
        found = conn.execute("SELECT value FROM meta WHERE key = 'module'").fetchone()
        conn.close()
    except (StoreError, sqlite3.Error):
        return str(store.parent.name)
    return str(found[0]) if found else str(store.parent.name)


def _where(args: argparse.Namespace) -> tuple[list[str], list[Any]]:
    clauses: list[str] = ["shadow = ?"]
    params: list[Any] = [1 if args.shadow else 0]
    if args.denied:
        clauses.append("decision = 'deny'")
    for column, value in (("session_id", args.session), ("agent", args.agent), ("tool", args.tool)):
        if value is not None:
            clauses.append(f"{column} = ?")
            params.append(value)
    if args.since is not None:
        clauses.append("time >= ?")
        params.append(parse_since(args.since))
    return clauses, params


def _select(conn: sqlite3.Connection, args: argparse.Namespace, after: int = 0) -> list[Any]:
    clauses, params = _where(args)
    clauses.append("id > ?")
    sql = f"SELECT {_FIELDS} FROM decisions WHERE {' AND '.join(clauses)}"
    if after:
        return list(conn.execute(f"{sql} ORDER BY id", (*params, after)))
    order = "(decision = 'deny') DESC, id DESC" if args.shadow else "id DESC"
    limit = args.limit or -1  # --limit 0: every record (SQLite reads a negative LIMIT so)
    rows = list(conn.execute(f"{sql} ORDER BY {order} LIMIT ?", (*params, after, limit)))
    if args.shadow:  # denials first, each group newest last
        return sorted(rows, key=lambda r: (r["decision"] != "deny", r["id"]))
    return rows[::-1]


def log_main(args: argparse.Namespace) -> int:
    """List, follow or explain the module's decisions."""
    try:
        path = str(store_path(args.hooks))
        conn = open_reader(path)
        redactor = Redactor(redaction_patterns(conn))
        if args.why is not None:
            return _why(conn, args, redactor)
        # read before the first query: a record written between the two is followed, not lost
        newest = _last_id(conn) if args.follow else 0
        rows = _select(conn, args)
        _print(rows, args, redactor, header=True, conn=conn)
        if args.follow:
            _follow(conn, args, redactor, rows[-1]["id"] if rows else newest)
    except (PathError, LogError, StoreError) as exc:
        return _fail(exc)
    except sqlite3.Error as exc:
        return _fail(classify(exc, path))
    except KeyboardInterrupt:
        return 0
    return 0


def _last_id(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT coalesce(max(id), 0) FROM decisions").fetchone()[0])


def _follow(
    conn: sqlite3.Connection, args: argparse.Namespace, redactor: Redactor, last: int
) -> None:
    while True:
        time.sleep(FOLLOW_S)
        rows = _select(conn, args, after=last)
        if rows:  # a new module version may have brought patterns of its own
            redactor = Redactor(redaction_patterns(conn))
            _print(rows, args, redactor, header=False, conn=conn)
            last = rows[-1]["id"]


def _print(
    rows: list[Any],
    args: argparse.Namespace,
    redactor: Redactor,
    *,
    header: bool,
    conn: sqlite3.Connection,
) -> None:
    if args.json:
        for row in rows:
            print(json.dumps(_as_json(row, redactor, conn)), flush=True)
        return
    if not rows and header and not args.follow:
        print("hookd: no decisions match")
        return
    table = [_cells(row, redactor) for row in rows]
    if header:
        table.insert(0, ("ID", "TIME", "AGENT", "EVENT", "TOOL", "DECISION", "HOOK", "REASON"))
    widths = [max(len(r[i]) for r in table) for i in range(7)] if table else []
    for cells in table:
        line = "  ".join(c.ljust(w) for c, w in zip(cells[:7], widths, strict=True))
        print(f"{line}  {cells[7]}".rstrip(), flush=True)


def _when(seconds: float, full: bool = False) -> str:
    stamp = datetime.fromtimestamp(seconds)
    if full or stamp.date() != datetime.now().date():
        return stamp.strftime("%Y-%m-%d %H:%M:%S")
    return stamp.strftime("%H:%M:%S")


def _cells(row: Any, redactor: Redactor) -> tuple[str, ...]:
    reason = escape_controls(redactor.text(" ".join((row["reason"] or "").split())))
    if row["failure"]:
        reason = f"[{row['failure']}] {reason}".strip()
    if len(reason) > REASON_CHARS:
        reason = reason[: REASON_CHARS - 3] + "..."
    cells = (
        str(row["id"]), _when(row["time"]), row["agent"] or "-", row["event"] or "-",
        row["tool"] or "-", row["decision"], row["hooks"] or "-",
    )  # fmt: skip
    return (*(escape_controls(redactor.text(c)) for c in cells), reason)


def _input(conn: sqlite3.Connection, record_id: int, redactor: Redactor) -> Any:
    found = conn.execute("SELECT input FROM decisions WHERE id = ?", (record_id,)).fetchone()
    try:
        value = json.loads(found[0]) if found and found[0] else None
    except ValueError:
        value = found[0]
    return redactor.value(value)


def _as_json(row: Any, redactor: Redactor, conn: sqlite3.Connection) -> dict[str, Any]:
    fields = {key: row[key] for key in row.keys()}  # noqa: SIM118 (sqlite3.Row)
    out: dict[str, Any] = redactor.value(fields)  # a session id is the agent's text
    out["time"] = (
        datetime.fromtimestamp(row["time"]).astimezone().isoformat(timespec="milliseconds")
    )
    out["hooks"] = [h for h in (row["hooks"] or "").split(",") if h]
    out["shadow"] = bool(row["shadow"])
    out["reason"] = redactor.text(row["reason"] or "")
    out["input"] = _input(conn, row["id"], redactor)
    return out


def _why(conn: sqlite3.Connection, args: argparse.Namespace, redactor: Redactor) -> int:
    if args.why == "latest":
        clauses, params = _where(args)
        clauses.append("decision = 'deny'")
        sql = f"SELECT {_FIELDS} FROM decisions WHERE {' AND '.join(clauses)} ORDER BY id DESC"
        row = conn.execute(f"{sql} LIMIT 1", params).fetchone()
        if row is None:
            raise LogError("no denial recorded" + (" by a shadow hook" if args.shadow else ""))
    else:  # a record ID, checked by the parser (1 to 2**63 - 1: SQLite's integers)
        row = conn.execute(f"SELECT {_FIELDS} FROM decisions WHERE id = ?", (int(args.why),))
        row = row.fetchone()
        if row is None:
            raise LogError(f"no record {args.why}")
    if args.json:
        print(json.dumps(_as_json(row, redactor, conn)))
        return 0
    lines = _explained(row, redactor, conn)
    print("\n".join(escape_controls(redactor.text(line)) for line in lines))
    return 0


def _explained(row: Any, redactor: Redactor, conn: sqlite3.Connection) -> list[str]:
    seen = _input(conn, row["id"], redactor)
    shown = seen.get("tool_input", seen) if isinstance(seen, dict) else seen
    what = f"{row['event']} {row['tool']}" if row["tool"] else row["event"]
    shadow = " (shadow: the agent was not affected)" if row["shadow"] else ""
    hooks = row["hooks"] or "no hook (hookd itself)"
    lines = [
        f"record {row['id']}: {what} -> {row['decision']}{shadow}",
        f"  decided by: {hooks}",
        f"  reason: {redactor.text(row['reason'] or '') or '(none given)'}",
    ]
    if row["failure"]:
        lines.append(f"  failure: {row['failure']}")
    lines += [
        f"  input: {json.dumps(shown, ensure_ascii=False)}",
        f"  module version: {row['version'] or '-'}, at {_when(row['time'], full=True)} "
        f"({row['agent']}, session {row['session_id'] or '-'})",
    ]
    return lines
