"""``hookd status``: a daemon's ``GET /status`` answer as a readable block."""

from __future__ import annotations

import time
from typing import Any

__all__ = ["duration", "render"]

COLUMNS = ("ID", "EVENT", "NAME", "CALLS", "ERRORS", "TIMEOUTS", "STUCK", "P50 MS", "P99 MS")


def duration(seconds: float) -> str:
    """``3h04m``, ``4m05s``, ``12s``."""
    s = int(seconds)
    if s >= 3600:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    if s >= 60:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s}s"


def _when(value: Any) -> str:
    if isinstance(value, int | float) and value > 0:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(value))
    return str(value) if value else "never"


def _ms(value: Any) -> str:
    return f"{value:.2f}" if isinstance(value, int | float) else "-"


def render(status: dict[str, Any], port: int) -> str:
    """The daemon, its reload state, one row per hook, a line per quarantined hook, and one
    line per agent that called."""
    lines = [
        f"{status.get('module')}",
        f"  pid {status.get('pid')}, 127.0.0.1:{port}, up {duration(status.get('uptime_s') or 0)}",
        f"  last reload: {_when(status.get('last_reload'))}",
    ]
    error = status.get("reload_error")
    lines.append(f"  reload error: {error}" if error else "  reload error: none")
    rows = [COLUMNS]
    for h in status.get("hooks") or []:
        rows.append(
            (
                str(h.get("callback_id")),
                str(h.get("event")),
                str(h.get("name")),
                str(h.get("calls", 0)),
                str(h.get("errors", 0)),
                str(h.get("timeouts", 0)),
                str(h.get("stuck", 0)),
                _ms(h.get("p50_ms")),
                _ms(h.get("p99_ms")),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(COLUMNS))]
    for row in rows:
        cells = (c.ljust(w) for c, w in zip(row, widths, strict=True))
        lines.append(("  " + "  ".join(cells)).rstrip())
    lines += _quarantined(status)
    for path, agent in (status.get("configs") or {}).items():
        lines.append(f"  {agent} hooks in {path}")
    for agent, a in (status.get("agents") or {}).items():
        decided = a.get("decisions")
        denials = f"{decided.get('deny', 0)} denials, " if isinstance(decided, dict) else ""
        lines.append(
            f"  {agent}: {a.get('calls', 0)} calls, {denials}{a.get('errors', 0)} errors, "
            f"{a.get('timeouts', 0)} timeouts, p50 {_ms(a.get('p50_ms'))} ms, "
            f"p99 {_ms(a.get('p99_ms'))} ms"
        )
    lines += _decisions(status)
    return "\n".join(lines)


def _quarantined(status: dict[str, Any]) -> list[str]:
    """One line per hook quarantined now: in how many sessions, until when, and why."""
    lines = []
    for h in status.get("hooks") or []:
        until = h.get("quarantined_until")
        if isinstance(until, int | float):
            n = h.get("quarantined_sessions", 1)
            lines.append(
                f"  quarantined: {h.get('name')} ({h.get('callback_id')}) in {n} "
                f"session{'' if n == 1 else 's'} until {_when(until)}, "
                f"{h.get('quarantine_reason')}"
            )
    return lines


def _counts(counts: Any) -> str:
    if not isinstance(counts, dict) or not counts:
        return "none yet"
    return ", ".join(
        f"{name} {n}" for name, n in sorted(counts.items(), key=lambda i: (-i[1], i[0]))
    )


def _decisions(status: dict[str, Any]) -> list[str]:
    """Answers per decision, and the shadow hooks' would-be decisions (decision log kept)."""
    if "decisions" not in status:
        return []
    lines = [f"  decisions: {_counts(status.get('decisions'))}"]
    if status.get("shadow_decisions"):
        lines.append(f"  shadow decisions: {_counts(status.get('shadow_decisions'))}")
    store = status.get("decision_log") or {}
    if store.get("error"):
        held = _mib(store.get("waiting_bytes", 0))
        lines.append(
            f"  decision log: {store['error']} ({store.get('waiting', 0)} waiting, {held}, "
            f"{store.get('dropped', 0)} dropped)"
        )
    elif store.get("dropped"):
        lines.append(f"  decision log: {store['dropped']} records dropped while it was unusable")
    return lines


def _mib(n: object) -> str:
    return f"{n / 2**20:.1f} MiB" if isinstance(n, int | float) else "? MiB"
