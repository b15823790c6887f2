"""The hook-event catalogue: all 33 events, their matcher field, block style and types."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from hookd import events
from hookd.events import EVENTS, AsyncOutput, input_type, output_type

ROOT = Path(__file__).resolve().parents[2]
TRANSCRIPTS = sorted((ROOT / "conformance" / "transcripts").glob("v[0-9]*.jsonl"))

# (event, matcher field, block style, takes a hookSpecificOutput), in the CLI's order.
CATALOGUE: list[tuple[str, str | None, str, bool]] = [
    ("PreToolUse", "tool_name", "permission_decision", True),
    ("PostToolUse", "tool_name", "decision", True),
    ("PostToolUseFailure", "tool_name", "decision", True),
    ("PostToolBatch", None, "decision", True),
    ("Notification", "notification_type", "none", True),
    ("UserPromptSubmit", None, "decision", True),
    ("UserPromptExpansion", "command_name", "decision", True),
    ("SessionStart", "source", "none", True),
    ("SessionEnd", "reason", "none", False),
    ("Stop", None, "decision", True),
    ("StopFailure", "error", "none", False),
    ("SubagentStart", "agent_type", "none", True),
    ("SubagentStop", "agent_type", "decision", True),
    ("PreCompact", "trigger", "decision", False),
    ("PostCompact", "trigger", "none", False),
    ("PreModelSwitch", "to_model", "permission_decision", True),
    ("PostModelSwitch", "to_model", "none", True),
    ("PermissionRequest", "tool_name", "permission_request", True),
    ("PermissionDenied", "tool_name", "none", True),
    ("Setup", "trigger", "none", True),
    ("TeammateIdle", None, "decision", False),
    ("TaskCreated", None, "decision", False),
    ("TaskCompleted", None, "decision", False),
    ("Elicitation", "mcp_server_name", "decision", True),
    ("ElicitationResult", "mcp_server_name", "decision", True),
    ("ConfigChange", "source", "decision", False),
    ("WorktreeCreate", None, "none", True),
    ("WorktreeRemove", None, "none", False),
    ("InstructionsLoaded", "load_reason", "none", False),
    ("CwdChanged", None, "none", True),
    ("FileChanged", "file_path", "none", True),
    ("DirectoryAdded", "source", "none", False),
    ("MessageDisplay", None, "none", True),
]


def test_the_catalogue_holds_the_33_events_in_the_cli_order() -> None:
    assert list(EVENTS) == [row[0] for row in CATALOGUE]
    assert len(EVENTS) == 33


@pytest.mark.parametrize(("event", "matcher_field", "block_style", "specific"), CATALOGUE)
def test_each_event_spec(
    event: str, matcher_field: str | None, block_style: str, specific: bool
) -> None:
    spec = EVENTS[event]
    assert spec.name == event
    assert spec.matcher_field == matcher_field
    assert spec.block_style == block_style
    assert (spec.hook_specific_type is not None) == specific
    assert spec.input_type.__name__ == f"{event}Input"
    assert spec.output_type.__name__ == f"{event}Output"
    assert input_type(event) is spec.input_type
    assert output_type(event) is spec.output_type
    assert output_type(event, is_async=True) is AsyncOutput


@pytest.mark.parametrize("event", [e for e, field, _, _ in CATALOGUE if field is not None])
def test_the_matcher_field_is_a_field_of_the_input(event: str) -> None:
    spec = EVENTS[event]
    names = {f.name for f in msgspec.structs.fields(spec.input_type)}
    assert spec.matcher_field in names


@pytest.mark.parametrize("event", list(EVENTS))
def test_an_input_names_its_own_event(event: str) -> None:
    fields = {f.name: f for f in msgspec.structs.fields(EVENTS[event].input_type)}
    assert fields["hook_event_name"].required
    info = msgspec.inspect.type_info(EVENTS[event].input_type)
    assert isinstance(info, msgspec.inspect.StructType)
    (name_field,) = [f for f in info.fields if f.name == "hook_event_name"]
    assert name_field.type == msgspec.inspect.LiteralType((event,))


@pytest.mark.parametrize("event", [e for e, _, _, specific in CATALOGUE if specific])
def test_a_hook_specific_output_requires_its_event_name(event: str) -> None:
    specific = EVENTS[event].hook_specific_type
    assert specific is not None
    info = msgspec.inspect.type_info(specific)
    assert isinstance(info, msgspec.inspect.StructType)
    assert info.forbid_unknown_fields
    field = info.fields[0]
    assert (field.encode_name, field.required) == ("hookEventName", True)
    assert field.type == msgspec.inspect.LiteralType((event,))


@pytest.mark.parametrize("event", ["", "pretooluse", "SomeFutureEvent"])
def test_unknown_events_have_no_types(event: str) -> None:
    assert event not in EVENTS
    assert input_type(event) is None
    assert output_type(event) is None


def _hook_inputs() -> list[dict[str, Any]]:
    found = []
    for path in TRANSCRIPTS:
        for line in path.read_text(encoding="utf-8").splitlines():
            msg = json.loads(line)["msg"]
            request = msg.get("request", {}) if msg.get("type") == "control_request" else {}
            if request.get("subtype") == "hook_callback":
                found.append(request["input"])
    return found


def test_the_real_transcripts_are_here() -> None:
    assert [p.name for p in TRANSCRIPTS] == [
        "v2.1.330_allow.jsonl",
        "v2.1.330_deny.jsonl",
        "v2.1.330_error-then-can_use_tool.jsonl",
    ]
    assert {i["hook_event_name"] for i in _hook_inputs()} == {
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "Stop",
    }


@pytest.mark.parametrize("hook_input", _hook_inputs(), ids=lambda i: i["hook_event_name"])
def test_real_inputs_convert_to_typed_inputs(hook_input: dict[str, Any]) -> None:
    typed = msgspec.convert(hook_input, EVENTS[hook_input["hook_event_name"]].input_type)
    assert isinstance(typed, events.HookInput)
    assert typed.session_id == hook_input["session_id"]
    assert typed.hook_event_name == hook_input["hook_event_name"]
    assert typed.permission_mode == "default"
    assert msgspec.to_builtins(typed) == hook_input


def test_typed_inputs_accept_new_fields_and_new_values() -> None:
    raw = {
        "session_id": "s",
        "transcript_path": "/t",
        "cwd": "/w",
        "hook_event_name": "SessionStart",
        "source": "teleport",
        "field_of_a_later_release": {"x": 1},
        "effort": {"level": "max", "budget": 3},
    }
    typed = msgspec.convert(raw, events.SessionStartInput)
    assert typed.source == "teleport"
    assert typed.effort == events.Effort(level="max")
    assert typed.model is None


def test_typed_inputs_are_immutable() -> None:
    typed = events.StopInput(
        session_id="s",
        transcript_path="/t",
        cwd="/w",
        hook_event_name="Stop",
        stop_hook_active=True,
    )
    with pytest.raises(AttributeError):
        typed.stop_hook_active = False  # type: ignore[misc]


def test_outputs_use_wire_names() -> None:
    specific = EVENTS["PostToolUse"].hook_specific_type
    out_type = EVENTS["PostToolUse"].output_type
    assert specific is not None
    wire = {
        "continue": False,
        "suppressOutput": True,
        "stopReason": "s",
        "systemMessage": "m",
        "terminalSequence": "\u0007",
        "hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "additionalContext": "c",
            "updatedMCPToolOutput": [1],
        },
    }
    built = msgspec.convert(wire, out_type)
    assert built.continue_ is False  # type: ignore[attr-defined]
    assert built.hook_specific_output.updated_mcp_tool_output == [1]  # type: ignore[attr-defined]
    assert json.loads(msgspec.json.encode(built)) == wire
    assert json.loads(msgspec.json.encode(AsyncOutput(async_=True, async_timeout=5000))) == {
        "async": True,
        "asyncTimeout": 5000.0,
    }
