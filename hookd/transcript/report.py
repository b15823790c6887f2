"""The readable report of a replay: one block per mismatching, missing or extra answer.

One report for every transport (stdio or HTTP): ``hookd replay`` prints it, and
:mod:`hookd.testing.pinning` fails a test with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import msgspec

from hookd.transcript.answers import Mismatch
from hookd.transcript.format import Entry
from hookd.transcript.plan import OTHER, Expected, Key, request_body, request_name

if TYPE_CHECKING:
    from hookd.transcript.session import ReplayResult

__all__ = ["format_report"]

STDERR_LINES: Final = 20
SHOW_CHARS: Final = 300


def format_report(result: ReplayResult) -> str:
    """PASS/FAIL with a summary line, then a field-level diff per problem."""
    lines = [f"{'PASS' if result.ok else 'FAIL'} {_name(result)}: {_summary(result)}"]
    for mismatch in result.answers.mismatches:
        lines += _mismatch(mismatch, result.mapping)
    for exp in result.answers.missing():
        lines.append(f"  {_label(exp, result.mapping)}:")
        lines.append("    no answer from hookd")
    for msg, key in zip(result.answers.unexpected, result.answers.unexpected_keys, strict=True):
        lines.append(f"  {_key_text(key)}: answered, but the recording has no such answer")
        lines.append(f"    (a cancelled or never-answered request must get none) got {_show(msg)}")
    lines += [f"  hookd wrote a line that is not JSON: {_show(g)}" for g in result.answers.garbage]
    lines += [f"  error: {error}" for error in result.errors]
    lines += [f"  note: {note}" for note in result.notes]
    if not result.ok and result.stderr:
        lines += _stderr_tail(result.stderr)
    return "\n".join(lines)


def _name(result: ReplayResult) -> str:
    path = result.transcript.path
    return str(path) if path is not None else "<transcript>"


def _summary(result: ReplayResult) -> str:
    total = len(result.plan.expected)
    bad = len(result.answers.mismatches) + len(result.answers.missing())
    sent = "requests sent over HTTP" if result.plan.mode == "http" else "lines sent"
    parts = [f"{total - bad}/{total} answers match", f"{len(result.plan.steps)} {sent}"]
    if result.plan.skipped:
        parts.append(f"{len(result.plan.skipped)} host-only lines skipped")
    return ", ".join(parts)


def _mismatch(mismatch: Mismatch, mapping: dict[str, str]) -> list[str]:
    out = [f"  {_label(mismatch.expected, mapping)}:"]
    out += [f"    {difference.describe()}" for difference in mismatch.differences]
    return out


def _label(exp: Expected, mapping: dict[str, str]) -> str:
    """``request "abc" (hook_callback PreToolUse, callback hook_0 -> hookd hook_1; ...)``,
    ``request (POST /hook/Stop; request line 4; answer line 5)`` over HTTP."""
    kind, ident = exp.key
    if kind == "http":
        head = "request"
    else:
        head = f"request {ident}" if kind in ("control", "jsonrpc") else f"{kind} answer {ident}"
    details: list[str] = []
    if exp.request is not None:
        details.append(_describe_request(exp.request, mapping))
        details.append(f"request line {exp.request.lineno}")
    details.append(f"answer line {exp.entry.lineno}")
    return f"{head} ({'; '.join(d for d in details if d)})"


def _describe_request(request: Entry, mapping: dict[str, str]) -> str:
    if request.http is not None:
        return f"{request.http.get('method', 'POST')} {request.http.get('target', '/hook')}"
    name = request_name(request.msg)
    body = request_body(request.msg) or {}
    data = body.get("input")
    event = data.get("hook_event_name") if isinstance(data, dict) else body.get("event")
    text = f"{name} {event}" if event else name
    callback = body.get("callback_id")
    if isinstance(callback, str):
        mapped = mapping.get(callback)
        renamed = mapped is not None and mapped != callback
        text += f", callback {callback}" + (f" -> hookd {mapped}" if renamed else "")
    return text


def _key_text(key: Key) -> str:
    kind, ident = key
    if kind == "http":
        return f"request line {ident}"
    return "answer" if key == OTHER else f"request {ident}"


def _show(value: Any) -> str:
    raw = value if isinstance(value, bytes) else msgspec.json.encode(value)
    return _clip(raw.decode("utf-8", "replace"))


def _stderr_tail(stderr: bytearray) -> list[str]:
    tail = bytes(stderr).decode("utf-8", "replace").splitlines()[-STDERR_LINES:]
    return ["  hookd stderr (last lines):", *(f"    | {_clip(line)}" for line in tail)]


def _clip(text: str) -> str:
    return text if len(text) <= SHOW_CHARS else text[: SHOW_CHARS - 3] + "..."
