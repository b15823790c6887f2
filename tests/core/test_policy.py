"""The failure policy, row by row, through the server: exception, timeout, invalid output."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

import hookd
from hookd.core.registry import HookMatcher, Registry
from hookd.events import EVENTS
from tests.peer import event_input, hook_request, pre_tool_use, served

SPEC = Path(__file__).resolve().parents[2] / "protocol" / "SPEC.md"

INPUTS: dict[str, dict[str, Any]] = {
    "PreToolUse": pre_tool_use(),
    "PermissionRequest": event_input("PermissionRequest", tool_name="Bash", tool_input={}),
    "UserPromptSubmit": event_input("UserPromptSubmit", prompt="hi"),
    "Stop": event_input("Stop", stop_hook_active=False),
    "Notification": event_input("Notification", message="m", notification_type="info"),
    "PostToolUse": event_input(
        "PostToolUse", tool_name="Bash", tool_input={}, tool_response={}, tool_use_id="t"
    ),
}


async def _raise(i: Any, t: Any, c: Any) -> Any:
    raise ValueError("kaput")


async def _hang(i: Any, t: Any, c: Any) -> Any:
    await trio.sleep_forever()


async def _invalid(i: Any, t: Any, c: Any) -> Any:
    return {"decison": "block"}


async def _abort(i: Any, t: Any, c: Any) -> Any:
    raise hookd.HookAbortError("halt")


FAULTS = {"exception": _raise, "timeout": _hang, "invalid_output": _invalid}
CODES = {
    "exception": "hook_execution_error",
    "timeout": "hook_timeout",
    "invalid_output": "invalid_output",
}
REASONS = {
    "exception": "raised an exception: kaput",
    "timeout": "timed out: no answer within",
    "invalid_output": "returned an invalid output: output: unknown field 'decison' (did you mean",
}


async def _answer(event: str, fn: Any, on_failure: str | None) -> dict[str, Any]:
    reg = Registry()
    reg.add_hooks({event: [HookMatcher(hooks=[fn], timeout=4, on_failure=on_failure)]})  # type: ignore[arg-type]
    async with served(reg) as (peer, _):
        await peer.send(hook_request("r", "hook_1", INPUTS[event]))
        msg: dict[str, Any] = (await peer.recv(timeout=30))["response"]
        return msg


def _blocked(event: str, resp: dict[str, Any]) -> str:
    """The reason of a blocking answer for ``event`` (fails if it is not one)."""
    assert resp["subtype"] == "success", resp
    out = resp["response"]
    match EVENTS[event].block_style:
        case "permission_decision":
            spec = out["hookSpecificOutput"]
            assert (spec["hookEventName"], spec["permissionDecision"]) == (event, "deny")
            return str(spec["permissionDecisionReason"])
        case "permission_request":
            decision = out["hookSpecificOutput"]["decision"]
            assert decision["behavior"] == "deny"
            return str(decision["message"])
        case _:
            assert out["decision"] == "block"
            return str(out["reason"])


ROWS = [
    (event, kind, policy)
    for event in INPUTS
    for kind in FAULTS
    for policy in (None, "block", "continue")
]


@pytest.mark.req("R-080", "R-081", "R-082", "R-090")
@pytest.mark.parametrize(("event", "kind", "policy"), ROWS)
async def test_failure_policy_row(
    event: str, kind: str, policy: str | None, autojump_clock: trio.testing.MockClock
) -> None:
    resp = await _answer(event, FAULTS[kind], policy)
    effective = policy or (
        "block" if event in {"PreToolUse", "PermissionRequest", "UserPromptSubmit"} else "continue"
    )
    if effective == "block" and EVENTS[event].block_style != "none":
        reason = _blocked(event, resp)
        assert reason.startswith("hookd: hook ") and REASONS[kind] in reason
    else:
        assert resp["subtype"] == "error"
        assert resp["error_code"] == CODES[kind]


@pytest.mark.req("R-083")
@pytest.mark.parametrize("event", list(INPUTS))
@pytest.mark.parametrize("policy", [None, "block", "continue"])
async def test_abort_row(event: str, policy: str | None) -> None:
    resp = await _answer(event, _abort, policy)
    out = resp["response"]
    assert out["continue"] is False and out["stopReason"] == "halt"
    if event == "PreToolUse":
        assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    else:
        assert "hookSpecificOutput" not in out


@pytest.mark.req("R-081")
def test_spec_policy_table_lists_every_event_by_block_style() -> None:
    section = SPEC.read_text().split("## 6. Failure policy", 1)[1].split("\n## ", 1)[0]
    rows = {style: line for line in section.splitlines() if (style := _style_of(line))}
    for name, spec in EVENTS.items():
        assert re.search(rf"\b{name}\b", rows[spec.block_style]), (name, spec.block_style)


def _style_of(line: str) -> str | None:
    for style in ("permission_decision", "permission_request", "decision", "none"):
        if line.startswith(f"| {style} "):
            return style
    return None
