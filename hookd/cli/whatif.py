"""``hookd whatif CANDIDATE [HOOKS]``: the stored calls of HOOKS' decision log, answered again
by a candidate module, and the calls whose decision would change.

The store is only read (as ``hookd log`` reads it); the running daemon is never
asked. The candidate is loaded in a process of its own
(:mod:`hookd.cli.whatif_child`), which answers each call through the testing
kit, so through the one request handler and the call's own agent dialect. The
calls go to it one at a time, oldest first, so a stateful hook sees them in the
order they came. Every input and reason shown is redacted (built-in patterns,
the stored module versions' and the candidate's own). The child is kept on a
leash (:mod:`hookd.cli.candidate`): a load deadline, its output bounded, its
process group killed at the end.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections import Counter
from datetime import datetime
from typing import Any, Final

from hookd.cli.candidate import Candidate, WhatifError
from hookd.cli.log_commands import LogError, parse_since, store_path
from hookd.daemon.paths import PathError
from hookd.decision.store import StoreError, classify, open_reader, redaction_patterns
from hookd.redact import Redactor, escape_controls

__all__ = ["CHANGED_EXIT", "Candidate", "whatif_main"]

#: The exit status when at least one decision would change (0: none would; 1: an error).
CHANGED_EXIT: Final = 3
_CALLS: Final = (
    "SELECT id, time, agent, session_id, event, tool, hooks, decision, reason, failure, input "
    "FROM decisions WHERE shadow = 0 AND time >= ? ORDER BY id DESC LIMIT ?"
)


def _fail(message: object) -> int:
    print(escape_controls(f"hookd whatif: error: {message}"), file=sys.stderr)
    return 1


def _calls(hooks: str | None, since: float, limit: int | None) -> tuple[list[Any], list[str]]:
    """The stored calls to replay, oldest first, and the store's redaction patterns."""
    path = str(store_path(hooks))
    try:
        conn = open_reader(path)
        try:
            rows = list(conn.execute(_CALLS, (since, limit or -1)))  # None, 0: every call
            return rows[::-1], redaction_patterns(conn)
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise classify(exc, path) from None


def whatif_main(args: argparse.Namespace) -> int:
    """Replay, print each changed call and a summary; 0, :data:`CHANGED_EXIT` or 1."""
    try:
        rows, patterns = _calls(args.hooks, parse_since(args.since), args.limit)
        with Candidate(args.candidate, args.load_timeout) as candidate:
            redactor = Redactor([*patterns, *candidate.redact])
            changes, replayed = _replay(rows, candidate, redactor, args.json)
    except (PathError, LogError, StoreError, WhatifError) as exc:
        return _fail(exc)
    except KeyboardInterrupt:
        return 130
    _summary(replayed, changes, candidate.version, args.json)
    return CHANGED_EXIT if changes else 0


def _replay(rows: list[Any], candidate: Candidate, redactor: Redactor, as_json: bool) -> Any:
    changes: Counter[str] = Counter()
    replayed = 0
    for row in rows:
        try:
            data = json.loads(row["input"] or "")
        except ValueError:
            continue
        if not isinstance(data, dict):
            continue
        now = candidate.ask(row["event"], row["agent"] or "claude", data)
        replayed += 1
        if now["decision"] == row["decision"]:
            continue
        changes[f"{row['decision']}->{now['decision']}"] += 1
        change = _change(row, data, now, redactor)
        if as_json:
            print(json.dumps(change), flush=True)
        else:  # each line as a terminal may print it, the session id and hooks redacted too
            print("\n".join(escape_controls(redactor.text(s)) for s in _block(change)), flush=True)
    return changes, replayed


def _side(decision: str, hooks: list[str], reason: str, failure: str | None) -> dict[str, Any]:
    return {"decision": decision, "hooks": hooks, "reason": reason, "failure": failure}


def _change(row: Any, data: dict[str, Any], now: dict[str, Any], redactor: Redactor) -> Any:
    was_hooks = [h for h in (row["hooks"] or "").split(",") if h]
    was_reason = row["reason"] or ""
    change = {
        "id": row["id"],
        "time": datetime.fromtimestamp(row["time"]).astimezone().isoformat(timespec="seconds"),
        "agent": row["agent"],
        "session_id": row["session_id"],
        "event": row["event"],
        "tool": row["tool"],
        "input": data,
        "was": _side(row["decision"], was_hooks, was_reason, row["failure"]),
        "now": _side(now["decision"], now["hooks"], now["reason"], now["failure"]),
    }
    return redactor.value(change)  # every text: the session id, the input, both reasons


def _said(side: dict[str, Any]) -> str:
    text = side["decision"]
    if side["hooks"]:
        text += f" by {','.join(side['hooks'])}"
    if side["failure"]:
        text += f" [{side['failure']}]"
    reason = " ".join(side["reason"].split())
    return f"{text}: {reason}" if reason else text


def _block(change: dict[str, Any]) -> list[str]:
    what = f"{change['event']} {change['tool']}" if change["tool"] else change["event"]
    seen = change["input"]
    shown = seen.get("tool_input", seen) if change["tool"] else seen.get("prompt", seen)
    when = change["time"][:19].replace("T", " ")
    return [
        f"record {change['id']}: {what} ({change['agent']}, session "
        f"{change['session_id'] or '-'}, at {when})",
        f"  input: {json.dumps(shown, ensure_ascii=False)}",
        f"  was: {_said(change['was'])}",
        f"  now: {_said(change['now'])}",
        "",
    ]


def _summary(replayed: int, changes: Counter[str], version: str, as_json: bool) -> None:
    total = sum(changes.values())
    if as_json:
        print(json.dumps({"replayed": replayed, "changed": total, "changes": dict(changes),
                          "candidate_version": version}))  # fmt: skip
        return
    noun = "call" if replayed == 1 else "calls"
    counts = ", ".join(f"{key} {n}" for key, n in changes.most_common())
    said = f"{replayed} {noun} replayed, {total} changed" + (f": {counts}" if counts else "")
    print(escape_controls(said))
