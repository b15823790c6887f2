"""``hookd schema`` and ``hookd validate``: the schemas and the validator on the command line.

``hookd validate FILE|-`` reads one of:

* a hook output (one JSON object); its event is ``--event`` or its
  ``hookSpecificOutput.hookEventName``;
* JSON lines, one output per line, likewise;
* a transcript (lines ``{"dir": ..., "t": ..., "msg": {...}}``): the input of each
  ``hook_callback`` / ``hook_dispatch`` request the CLI sent is checked against
  its event's input schema, and hookd's success answer to it (matched by request
  id) against the event's output schema.

Outputs are checked as ``hookd serve`` would send them: a missing
``hookEventName`` is filled in and ``continue_``/``async_`` are renamed first; a
transcript's answers are checked as recorded on the wire. One line per
problem, then a summary. Exit 0 if everything is valid, 1 if not, 2 if the file
cannot be read.
"""

from __future__ import annotations

import difflib
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hookd import wire
from hookd.errors import InvalidOutputError
from hookd.events import EVENTS
from hookd.events.names import unknown_event
from hookd.events.validation import check_input, prepare_output, sdk_renamed, validate_output
from hookd.json_words import json_type
from hookd.published import render_schema, schema_names, write_schemas

__all__ = ["schema_main", "validate_main"]

_DISPATCH = frozenset({"hook_dispatch", "hooks/dispatch"})
_SERVED = frozenset({"hook_callback", *_DISPATCH})


def schema_main(name: str | None, write_dir: str | None) -> int:
    """No name: list the schemas. A name: print it. ``write_dir``: write the files."""
    if write_dir is not None:
        try:
            paths = write_schemas(write_dir)
        except OSError as exc:
            print(
                f"hookd schema: error: cannot write schemas under {write_dir}: "
                f"{exc.strerror or exc}",
                file=sys.stderr,
            )
            return 1
        print(f"wrote {len(paths)} schemas under {write_dir}")
        return 0
    if name is None:
        print("\n".join(schema_names()))
        return 0
    try:
        text = render_schema(name.removesuffix(".json"))
    except KeyError:
        close = _closest(name.removesuffix(".json"), schema_names())
        hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
        print(f"hookd schema: no schema {name!r}{hint}; `hookd schema` lists them", file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return 0


def _closest(name: str, names: list[str]) -> list[str]:
    """The schemas ``name`` most likely meant: the closest full name, else those of the
    closest short name (``PreToolUs`` -> both of ``events/PreToolUse``'s)."""
    close = difflib.get_close_matches(name, names, n=1)
    if close:
        return close
    short: dict[str, list[str]] = {}
    for full in names:
        stem = full.rpartition("/")[2]
        for key in (stem, stem.partition(".")[0]):
            short.setdefault(key, []).append(full)
    found = difflib.get_close_matches(name.rpartition("/")[2], list(short), n=1, cutoff=0.7)
    return short[found[0]] if found else []


def validate_main(path: str, event: str | None) -> int:
    """Validate the outputs, or the transcript, in ``path`` (``-``: stdin)."""
    if event is not None and event not in EVENTS:
        print(f"hookd validate: error: --event: {unknown_event(event)}", file=sys.stderr)
        return 2
    label = "<stdin>" if path == "-" else path
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"hookd validate: error: cannot read {label}: {exc}", file=sys.stderr)
        return 2
    lines = list(_parse(text))
    if not lines:
        print(f"hookd validate: error: {label} holds no JSON", file=sys.stderr)
        return 2
    report = _Report(label)
    if any(_is_record(value) for _, value, _ in lines):
        _check_transcript(lines, report)
    else:
        _check_outputs(lines, event, report)
    return report.finish()


# --------------------------------------------------------------------------- reading

#: (line number, parsed value, parse error); the value is None when the line is not JSON.
_Line = tuple[int, Any, str | None]


def _parse(text: str) -> Iterator[_Line]:
    """The whole text as one JSON value if it is one, else one value per line."""
    try:
        yield 1, json.loads(text), None
        return
    except json.JSONDecodeError:
        pass
    for number, raw in enumerate(text.splitlines(), start=1):
        if raw.strip():
            try:
                yield number, json.loads(raw), None
            except json.JSONDecodeError as exc:
                yield number, None, f"invalid JSON: {exc}"


def _is_record(value: Any) -> bool:
    return isinstance(value, dict) and "dir" in value and "msg" in value


@dataclass
class _Report:
    """Prints problems as they are found, and the summary at the end."""

    label: str
    checked: int = 0
    invalid: int = 0

    def result(self, line: int, what: str, problem: str | None) -> None:
        self.checked += 1
        if problem is not None:
            self.invalid += 1
            print(f"{self.label}:{line}: {what}{': ' if what else ''}{problem}")

    def broken(self, line: int, problem: str) -> None:
        """A line that could not be checked at all counts as an invalid item."""
        self.result(line, "", problem)

    def warn(self, line: int, text: str) -> None:
        print(f"{self.label}:{line}: warning: {text}")

    def finish(self) -> int:
        valid = self.checked - self.invalid
        tail = f", {self.invalid} invalid" if self.invalid else ""
        print(f"{self.label}: checked {self.checked}: {valid} valid{tail}")
        return 1 if self.invalid else 0


# --------------------------------------------------------------------------- outputs


def _check_outputs(lines: list[_Line], event: str | None, report: _Report) -> None:
    for number, value, error in lines:
        if error is not None:
            report.broken(number, error)
            continue
        name = event or _named_event(value)
        if name is None:
            report.broken(
                number,
                "cannot tell the event: give --event or set hookSpecificOutput.hookEventName",
            )
            continue
        if name not in EVENTS:
            report.result(number, f"{name} output", f"hookEventName: {unknown_event(name)}")
            continue
        report.result(number, f"{name} output", _as_served(name, value))


def _as_served(event: str, value: Any) -> str | None:
    """What is wrong with ``value`` once hookd serve has prepared it, as it would be sent."""
    if not isinstance(value, dict):
        return validate_output(event, value)
    try:
        prepare_output(event, sdk_renamed(value))
    except InvalidOutputError as exc:
        return str(exc)
    return None


def _named_event(value: Any) -> str | None:
    specific = value.get("hookSpecificOutput") if isinstance(value, dict) else None
    name = specific.get("hookEventName") if isinstance(specific, dict) else None
    return name if isinstance(name, str) else None


def _output(report: _Report, line: int, event: str, value: Any, what: str) -> None:
    if event not in EVENTS:
        report.warn(line, f"unknown event {event!r}: only checked that the output is an object")
    report.result(line, what, validate_output(event, value))


# ------------------------------------------------------------------------ transcripts


@dataclass
class _Pending:
    """The hook requests seen, by (framing, id): their event and whether dispatched."""

    requests: dict[tuple[str, Any], tuple[str, bool]] = field(default_factory=dict)


def _check_transcript(lines: list[_Line], report: _Report) -> None:
    pending = _Pending()
    for number, record, error in lines:
        if error is not None:
            report.broken(number, error)
            continue
        if not _is_record(record):
            continue
        messages = record["msg"] if isinstance(record["msg"], list) else [record["msg"]]
        for msg in messages:
            if isinstance(msg, dict):
                _transcript_message(report, pending, number, record["dir"], msg)


def _transcript_message(
    report: _Report, pending: _Pending, line: int, direction: Any, msg: dict[str, Any]
) -> None:
    if direction == "cli->hookd":
        request = _hook_request(msg)
        if request is not None:
            _request(report, pending, line, request)
    elif direction == "hookd->cli":
        answer = _success(msg)
        if answer is not None and answer[0] in pending.requests:
            event, dispatched = pending.requests.pop(answer[0])
            payload = answer[1]
            output = payload.get("output") if dispatched and isinstance(payload, dict) else payload
            _output(report, line, event, output, f"answer to {_name(answer[0])} ({event})")
        elif answer is None:
            _forget_errors(pending, msg)


_Request = tuple[tuple[str, Any], str, dict[str, Any]]


def _hook_request(msg: dict[str, Any]) -> _Request | None:
    """(key, method, body) of a hook_callback / hook_dispatch request, in either framing."""
    seen = wire.classify(msg)
    if seen is None or seen.kind != "request" or seen.notification:
        return None
    name, body = seen.name, seen.body
    if name is None or name not in _SERVED or body is None:
        return None
    return (seen.framing, seen.request_id), name, body


def _request(report: _Report, pending: _Pending, line: int, request: _Request) -> None:
    key, method, body = request
    dispatched = method in _DISPATCH
    hook_input = body.get("input")
    if not isinstance(hook_input, dict):
        report.result(line, _name(key), _mistyped("input", "object", body, "input"))
        return
    event_at = (body, "event") if dispatched else (hook_input, "hook_event_name")
    event = event_at[0].get(event_at[1])
    if not isinstance(event, str):
        name = "event" if dispatched else "input.hook_event_name"
        report.result(line, _name(key), _mistyped(name, "string", *event_at))
        return
    pending.requests[key] = (event, dispatched)
    if event not in EVENTS:
        report.warn(line, f"{_name(key)}: unknown event {event!r}: input not checked")
        return
    report.result(line, _name(key), check_input(event, hook_input))


def _mistyped(name: str, expected: str, holder: dict[str, Any], key: str) -> str:
    if key not in holder:
        return f"{name}: required field missing"
    value = holder[key]
    return f"{name}: expected {expected}, got {json_type(value, integers=False)}"


def _success(msg: dict[str, Any]) -> tuple[tuple[str, Any], Any] | None:
    """(key, payload) of a success answer, in either framing."""
    seen = wire.classify(msg)
    if seen is None or seen.kind != "response" or not seen.success:
        return None
    return (seen.framing, seen.request_id), seen.payload


def _forget_errors(pending: _Pending, msg: dict[str, Any]) -> None:
    """An error answer closes its request: there is no output to check."""
    seen = wire.classify(msg)
    if seen is not None and seen.kind == "response":
        pending.requests.pop((seen.framing, seen.request_id), None)


def _name(key: tuple[str, Any]) -> str:
    return f"request {key[1]!r}"
