"""From a transcript to a replay plan: the CLI lines to send and the answers to expect.

* An answer is matched to its request by key: ``("control", request_id)``,
  ``("jsonrpc", id)``, ``("batch", item keys)`` for a JSON-RPC batch, or
  ``("http", request line)``. Messages are read by :func:`hookd.wire.classify`.
* Each CLI line is sent only after every answer recorded before it arrived.
* In ``http`` mode (recorded from ``hookd serve --http``) a request is keyed
  by its line, and its answer is the next one recorded on its connection.
* In ``host`` mode (recorded with the host on the other side of ``initialize``)
  the host's own lines are skipped: its requests and user messages, and the
  CLI's answers to them. Its ``initialize`` hooks map gives the recorded
  callback ids (in sidecar mode: hookd's recorded answer to ``initialize``),
  matched to hookd's by event and matcher (:mod:`hookd.transcript.registrations`).
"""

from __future__ import annotations

import collections
from dataclasses import dataclass, field
from typing import Any, Final

import msgspec

from hookd.transcript.format import FROM_HOOKD, TO_HOOKD, Entry, Mode, Transcript, TranscriptError
from hookd.wire import classify, with_body

__all__ = [
    "Expected",
    "Key",
    "Plan",
    "Step",
    "answer_key",
    "build_plan",
    "flatten_ids",
    "map_callback_ids",
    "request_key",
]

Key = tuple[str, str]
OTHER: Final[Key] = ("other", "")


def _id(value: Any) -> str:
    """A request id as its JSON text, so ``1``, ``"1"`` and ``null`` stay distinct."""
    return msgspec.json.encode(value).decode()


def answer_key(msg: Any) -> Key | None:
    """The key of an answer line; None if the line is not an answer."""
    if isinstance(msg, list):
        return ("batch", ",".join(sorted(str(answer_key(item)) for item in msg)))
    seen = classify(msg)
    if seen is None or seen.kind != "response":
        return None
    return (seen.framing, _id(seen.request_id))


def request_key(msg: Any) -> Key | None:
    """The key of a request line (what its answer will carry); None otherwise."""
    if isinstance(msg, list):
        keys = [request_key(item) for item in msg]
        return ("batch", ",".join(sorted(str(k) for k in keys if k is not None)))
    seen = classify(msg)
    if seen is None or seen.kind != "request" or seen.notification:
        return None
    return (seen.framing, _id(seen.request_id))


def cancel_target(msg: Any) -> Key | None:
    """The request a cancel line withdraws; None if the line is no cancel."""
    seen = classify(msg)
    if seen is None or seen.kind != "cancel":
        return None
    return (seen.framing, _id(seen.request_id))


def request_body(msg: Any) -> dict[str, Any] | None:
    """The body of a control request or the params of a JSON-RPC one."""
    seen = classify(msg)
    return seen.body if seen is not None and seen.kind == "request" else None


def request_name(msg: Any) -> str:
    """``hook_callback``, ``can_use_tool``, ... for labels."""
    seen = classify(msg)
    name = seen.name if seen is not None and seen.kind == "request" else None
    return name or "?"


def flatten_ids(hooks: Any) -> list[str]:
    """The callback ids of an ``initialize`` hooks map, in event/matcher/id order."""
    ids: list[str] = []
    if not isinstance(hooks, dict):
        return ids
    for matchers in hooks.values():
        for matcher in matchers if isinstance(matchers, list) else []:
            found = matcher.get("hookCallbackIds", []) if isinstance(matcher, dict) else []
            ids += [i for i in found if isinstance(i, str)]
    return ids


def map_callback_ids(msg: Any, mapping: dict[str, str]) -> Any:
    """``msg`` with its ``hook_callback`` ids renamed by ``mapping`` (a copy when changed)."""
    if not mapping:
        return msg
    if isinstance(msg, list):
        return [map_callback_ids(item, mapping) for item in msg]
    body = request_body(msg)
    if body is None or request_name(msg) != "hook_callback":
        return msg
    old = body.get("callback_id")
    if not isinstance(old, str) or old not in mapping:
        return msg
    return with_body(msg, {**body, "callback_id": mapping[old]})


@dataclass(slots=True)
class Step:
    """One CLI line to send once ``after`` recorded answers have arrived."""

    entry: Entry
    after: int
    key: Key | None = None
    cancels: Key | None = None
    delay_s: float = 0.0  # recorded time from the cancelled request to this cancel
    gap_s: float = 0.0  # recorded time from the previous CLI line


@dataclass(slots=True)
class Expected:
    """One answer hookd must give, and the request line it answers."""

    index: int
    entry: Entry
    key: Key
    request: Entry | None


@dataclass(slots=True)
class Plan:
    mode: Mode
    steps: list[Step] = field(default_factory=list)
    expected: list[Expected] = field(default_factory=list)
    recorded_ids: list[str] = field(default_factory=list)
    recorded_hooks: Any = None  # the recorded initialize hooks map, if the recording has one
    initialize_answers: list[Expected] = field(default_factory=list)  # sidecar: hookd's own
    skipped: list[Entry] = field(default_factory=list)


def infer_mode(transcript: Transcript) -> Mode:
    """The header's mode, else ``host`` when the hookd side sent ``initialize``."""
    if transcript.header.mode is not None:
        return transcript.header.mode
    for entry in transcript.entries:
        if entry.dir == FROM_HOOKD and request_name(entry.msg) == "initialize":
            return "host"
    return "sidecar"


def host_only(entry: Entry) -> bool:
    """A line only the host side of a recording wrote or was meant to read."""
    if entry.raw is not None:
        return False
    if entry.dir == FROM_HOOKD:
        return answer_key(entry.msg) is None
    seen = classify(entry.msg)
    return seen is not None and seen.kind == "response"


def build_plan(transcript: Transcript, mode: Mode | None = None) -> Plan:
    """Split ``transcript`` into steps to send and answers to expect."""
    plan = Plan(mode or infer_mode(transcript))
    if plan.mode == "http":
        return _http_plan(plan, transcript)
    requests: dict[Key, Entry] = {}
    last_sent: Entry | None = None
    for entry in transcript.entries:
        if plan.mode == "host" and host_only(entry):
            _note_host_line(plan, entry)
        elif entry.dir == TO_HOOKD:
            plan.steps.append(_step(entry, len(plan.expected), requests, last_sent))
            last_sent = entry
        elif entry.raw is not None:
            plan.skipped.append(entry)  # hookd wrote something that is not JSON
        else:
            key = answer_key(entry.msg) or OTHER
            request = requests.get(key)
            plan.expected.append(Expected(len(plan.expected), entry, key, request))
            _note_initialize_answer(plan, entry, request)
    return plan


def _http_plan(plan: Plan, transcript: Transcript) -> Plan:
    """An ``http`` recording: each request keyed by its line, each answer paired with the
    oldest unanswered request of its connection (one at a time on a keep-alive connection)."""
    waiting: dict[int, collections.deque[Step]] = {}
    last_sent: Entry | None = None
    for entry in transcript.entries:
        conn = entry.conn if entry.conn is not None else 0
        if entry.dir == TO_HOOKD:
            gap = entry.t - last_sent.t if last_sent is not None else 0.0
            step = Step(entry, len(plan.expected), ("http", str(entry.lineno)), gap_s=gap)
            plan.steps.append(step)
            waiting.setdefault(conn, collections.deque()).append(step)
            last_sent = entry
            continue
        queue = waiting.get(conn)
        if not queue:
            raise TranscriptError(f"line {entry.lineno}: an answer with no request before it")
        step = queue.popleft()
        assert step.key is not None
        plan.expected.append(Expected(len(plan.expected), entry, step.key, step.entry))
    return plan


def _note_initialize_answer(plan: Plan, entry: Entry, request: Entry | None) -> None:
    """A sidecar recording's hooks map is in hookd's answer to the CLI's ``initialize``."""
    if request is None:
        return
    seen = classify(entry.msg)
    if request_name(request.msg) != "initialize" or seen is None or seen.framing != "control":
        return
    payload = seen.payload
    if isinstance(payload, dict) and isinstance(payload.get("hooks"), dict):
        if plan.recorded_hooks is None:
            plan.recorded_hooks = payload["hooks"]
        plan.initialize_answers.append(plan.expected[-1])


def _note_host_line(plan: Plan, entry: Entry) -> None:
    plan.skipped.append(entry)
    if not plan.recorded_ids and request_name(entry.msg) == "initialize":
        body = request_body(entry.msg) or {}
        plan.recorded_ids = flatten_ids(body.get("hooks"))
        plan.recorded_hooks = body.get("hooks")


def _step(entry: Entry, after: int, requests: dict[Key, Entry], last: Entry | None) -> Step:
    step = Step(entry, after, gap_s=entry.t - last.t if last is not None else 0.0)
    if entry.raw is not None:
        return step
    step.key = request_key(entry.msg)
    if step.key is not None:
        requests[step.key] = entry
    step.cancels = cancel_target(entry.msg)
    target = requests.get(step.cancels) if step.cancels is not None else None
    if target is not None:
        step.delay_s = max(0.0, entry.t - target.t)
    return step
