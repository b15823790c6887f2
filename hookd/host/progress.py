"""The progress view of ``hookd run``: readable lines about the run, for a terminal.

Sans-IO: fed the bytes the CLI prints and the bytes hookd writes to it, it
emits one line per tool call, per hook or permission answer (with its
latency), per cancelled request, per failed tool and for the result.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import msgspec

from hookd.redact import escape_controls

__all__ = ["Progress", "describe_answer"]

Emit = Callable[[str], None]
JsonObject = dict[str, Any]

WIDTH: Final = 100


@dataclass(slots=True)
class _Pending:
    label: str
    started: float
    input: Any


def _one_line(value: Any, width: int = WIDTH) -> str:
    text = value if isinstance(value, str) else msgspec.json.encode(value).decode()
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _elapsed(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def _tool_summary(tool_input: Any) -> str:
    if isinstance(tool_input, dict):
        for key in ("command", "file_path", "path", "pattern", "url", "prompt"):
            if isinstance(tool_input.get(key), str):
                return _one_line(tool_input[key])
    return _one_line(tool_input)


def _specific_parts(out: JsonObject, original: Any) -> list[str]:
    parts: list[str] = []
    decision = out.get("permissionDecision")
    if isinstance(decision, str):
        reason = out.get("permissionDecisionReason")
        parts.append(f"{decision}: {_one_line(reason)}" if reason else decision)
    nested = out.get("decision")
    if isinstance(nested, dict) and "behavior" in nested:
        parts.append(str(nested["behavior"]))
    if "updatedInput" in out and out["updatedInput"] != original:
        parts.append(f"input -> {_tool_summary(out['updatedInput'])}")
    if out.get("additionalContext"):
        parts.append(f"context: {_one_line(out['additionalContext'], 60)}")
    return parts


def describe_answer(payload: Any, original_input: Any = None) -> str:
    """A few words for one hook or permission answer payload."""
    if not isinstance(payload, dict):
        return "answered"
    if "behavior" in payload:
        return _describe_permission(payload, original_input)
    parts = []
    specific = payload.get("hookSpecificOutput")
    if isinstance(specific, dict):
        parts += _specific_parts(specific, original_input)
    if payload.get("decision") == "block":
        parts.append(f"block: {_one_line(payload.get('reason') or '')}")
    if payload.get("continue") is False:
        parts.append(f"stop: {_one_line(payload.get('stopReason') or '')}")
    if payload.get("systemMessage"):
        parts.append(f"message: {_one_line(payload['systemMessage'], 60)}")
    return ", ".join(parts) or "no decision"


def _describe_permission(payload: JsonObject, original_input: Any) -> str:
    if payload["behavior"] == "deny":
        return f"deny: {_one_line(payload.get('message') or '')}"
    updated = payload.get("updatedInput")
    if updated is not None and updated != original_input:
        return f"allow, input -> {_tool_summary(updated)}"
    return str(payload["behavior"])


class Progress:
    """Turns the two directions of the CLI's stdio into progress lines."""

    def __init__(self, emit: Emit, clock: Callable[[], float] = time.monotonic) -> None:
        self._out = emit
        self._clock = clock
        self._pending: dict[str, _Pending] = {}

    def _emit(self, line: str) -> None:
        """One line as a terminal may print it: its commands and texts are the agent's."""
        self._out(escape_controls(line))

    def cli_message(self, msg: JsonObject) -> None:
        """One parsed message from the CLI."""
        match msg.get("type"):
            case "control_request":
                self._request(msg)
            case "control_cancel_request":
                self._cancelled(str(msg.get("request_id")))
            case "assistant":
                self._assistant(msg)
            case "user":
                self._tool_errors(msg)
            case "result":
                self._result(msg)
            case "system" if msg.get("subtype") == "api_retry":
                self._retry(msg)

    def host_message(self, msg: JsonObject) -> None:
        """One parsed message hookd sent to the CLI."""
        response = msg.get("response")
        if msg.get("type") != "control_response" or not isinstance(response, dict):
            return
        pending = self._pending.pop(str(response.get("request_id")), None)
        if pending is None:
            return
        if response.get("subtype") == "error":
            words = f"error: {_one_line(response.get('error') or '')}"
        else:
            words = describe_answer(response.get("response"), pending.input)
        took = _elapsed(self._clock() - pending.started)
        self._emit(f"    {pending.label} -> {words} ({took})")

    def _request(self, msg: JsonObject) -> None:
        body = msg.get("request")
        if not isinstance(body, dict):
            return
        label, original = _label(body)
        if label is not None:
            self._pending[str(msg.get("request_id"))] = _Pending(label, self._clock(), original)

    def _cancelled(self, request_id: str) -> None:
        pending = self._pending.pop(request_id, None)
        if pending is not None:
            took = _elapsed(self._clock() - pending.started)
            self._emit(f"    {pending.label} -> cancelled by the CLI after {took}")

    def _assistant(self, msg: JsonObject) -> None:
        for block in _content(msg):
            if block.get("type") == "tool_use":
                tool_input = block.get("input")
                self._emit(f"  > {block.get('name')}: {_tool_summary(tool_input)}")
            elif block.get("type") == "text" and block.get("text"):
                self._emit(f"  {_one_line(block['text'])}")

    def _tool_errors(self, msg: JsonObject) -> None:
        for block in _content(msg):
            if block.get("type") == "tool_result" and block.get("is_error"):
                self._emit(f"    ! {_one_line(_result_text(block.get('content')))}")

    def _retry(self, msg: JsonObject) -> None:
        """The CLI is retrying a failed API call: say so, or the view looks stuck."""
        status = msg.get("error_status")
        error = " ".join(str(x) for x in (status, msg.get("error")) if x) or "API error"
        delay = float(msg.get("retry_delay_ms") or 0) / 1000
        attempt, most = msg.get("attempt"), msg.get("max_retries")
        self._emit(f"  ~ API {_one_line(error, 60)}: retry {attempt}/{most} in {delay:.1f} s")

    def _result(self, msg: JsonObject) -> None:
        seconds = float(msg.get("duration_ms") or 0) / 1000
        turns = msg.get("num_turns")
        status = "error" if msg.get("is_error") else "done"
        why = msg.get("terminal_reason") or msg.get("subtype") or "no text"
        text = _one_line(msg.get("result") or f"({why})")
        self._emit(f"= {status}: {text} ({turns} turns, {seconds:.1f} s)")


def _label(body: JsonObject) -> tuple[str | None, Any]:
    match body.get("subtype"):
        case "hook_callback":
            raw = body.get("input")
            data: JsonObject = raw if isinstance(raw, dict) else {}
            event = data.get("hook_event_name", "hook")
            tool = f" {data['tool_name']}" if data.get("tool_name") else ""
            return f"{event}{tool} [{body.get('callback_id')}]", data.get("tool_input")
        case "can_use_tool":
            return f"can_use_tool {body.get('tool_name')}", body.get("input")
    return None, None


def _content(msg: JsonObject) -> list[JsonObject]:
    inner = msg.get("message")
    content = inner.get("content") if isinstance(inner, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _result_text(content: Any) -> str:
    if isinstance(content, list):
        return " ".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return str(content or "")
