"""From a transcript to a replay plan: the CLI lines to send and the answers to expect.

* An answer is matched to its request by key: ``("control", request_id)``,
  ``("jsonrpc", id)``, or ``("batch", item keys)`` for a JSON-RPC batch.
* Each CLI line is sent only after every answer recorded before it arrived.
* In ``host`` mode (recorded with the host on the other side of ``initialize``)
  the host's own lines are skipped: its requests and user messages, and the
  CLI's answers to them. Its ``initialize`` hooks map gives the recorded
  callback ids (in sidecar mode: hookd's recorded answer to ``initialize``),
  matched to hookd's by event and matcher (:mod:`hookd.transcript.registrations`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

import msgspec

from hookd.transcript.format import FROM_HOOKD, TO_HOOKD, Entry, Mode, Transcript

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
RPC_CANCEL: Final = "$/cancelRequest"


def _id(value: Any) -> str:
    """A request id as its JSON text, so ``1``, ``"1"`` and ``null`` stay distinct."""
    return msgspec.json.encode(value).decode()


def _is_rpc_response(msg: dict[str, Any]) -> bool:
    return "jsonrpc" in msg and "method" not in msg and ("result" in msg or "error" in msg)


def answer_key(msg: Any) -> Key | None:
    """The key of an answer line; None if the line is not an answer."""
    if isinstance(msg, list):
        return ("batch", ",".join(sorted(str(answer_key(item)) for item in msg)))
    if not isinstance(msg, dict):
        return None
    if msg.get("type") == "control_response" and isinstance(msg.get("response"), dict):
        return ("control", _id(msg["response"].get("request_id")))
    if _is_rpc_response(msg):
        return ("jsonrpc", _id(msg.get("id")))
    return None


def request_key(msg: Any) -> Key | None:
    """The key of a request line (what its answer will carry); None otherwise."""
    if isinstance(msg, list):
        keys = [request_key(item) for item in msg]
        return ("batch", ",".join(sorted(str(k) for k in keys if k is not None)))
    if not isinstance(msg, dict):
        return None
    if msg.get("type") == "control_request":
        return ("control", _id(msg.get("request_id")))
    if "jsonrpc" in msg and "method" in msg and "id" in msg and msg["method"] != RPC_CANCEL:
        return ("jsonrpc", _id(msg["id"]))
    return None


def cancel_target(msg: Any) -> Key | None:
    """The request a cancel line withdraws; None if the line is no cancel."""
    if not isinstance(msg, dict):
        return None
    if msg.get("type") == "control_cancel_request":
        return ("control", _id(msg.get("request_id")))
    if msg.get("method") == RPC_CANCEL and isinstance(msg.get("params"), dict):
        return ("jsonrpc", _id(msg["params"].get("id")))
    return None


def request_body(msg: Any) -> dict[str, Any] | None:
    """The body of a control request or the params of a JSON-RPC one."""
    if not isinstance(msg, dict):
        return None
    body = msg.get("request") if msg.get("type") == "control_request" else msg.get("params")
    return body if isinstance(body, dict) else None


def request_name(msg: Any) -> str:
    """``hook_callback``, ``can_use_tool``, ... for labels."""
    if isinstance(msg, dict) and "method" in msg:
        return str(msg["method"])
    body = request_body(msg)
    return str(body.get("subtype", "?")) if body is not None else "?"


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
    new_body = {**body, "callback_id": mapping[old]}
    key = "request" if msg.get("type") == "control_request" else "params"
    return {**msg, key: new_body}


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
    return isinstance(entry.msg, dict) and (
        entry.msg.get("type") == "control_response" or _is_rpc_response(entry.msg)
    )


def build_plan(transcript: Transcript, mode: Mode | None = None) -> Plan:
    """Split ``transcript`` into steps to send and answers to expect."""
    plan = Plan(mode or infer_mode(transcript))
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


def _note_initialize_answer(plan: Plan, entry: Entry, request: Entry | None) -> None:
    """A sidecar recording's hooks map is in hookd's answer to the CLI's ``initialize``."""
    if request is None:
        return
    if request_name(request.msg) != "initialize" or not isinstance(entry.msg, dict):
        return
    response = entry.msg.get("response")
    payload = response.get("response") if isinstance(response, dict) else None
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
