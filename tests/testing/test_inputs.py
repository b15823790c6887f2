"""Realistic inputs for all 33 events: the CLI's fields, overridable, checked like the CLI's own."""

from __future__ import annotations

import os

import pytest

from hookd.events import EVENTS
from hookd.events.validation import check_input
from hookd.testing import OMIT, InputError
from hookd.testing.inputs import Inputs

COMMON = ["session_id", "transcript_path", "cwd", "prompt_id", "permission_mode", "hook_event_name"]


@pytest.mark.req("R-706")
@pytest.mark.parametrize("event", list(EVENTS))
def test_every_event_has_a_valid_realistic_input(event: str) -> None:
    data = Inputs(session_id="s-1", cwd="/home/dev/proj").build(event, {})
    assert check_input(event, data) is None
    assert data["hook_event_name"] == event
    assert (data["session_id"], data["cwd"]) == ("s-1", "/home/dev/proj")
    assert data["transcript_path"].endswith("/.claude/projects/-home-dev-proj/s-1.jsonl")
    spec = EVENTS[event]
    if spec.matcher_field is not None:
        assert isinstance(data[spec.matcher_field], str)


@pytest.mark.req("R-706")
def test_the_fields_2_1_330_sends_in_its_order() -> None:
    inputs = Inputs(cwd="/home/dev/proj")
    pre = inputs.build("PreToolUse", {})
    assert list(pre) == [*COMMON, "tool_name", "tool_input", "tool_use_id"]
    assert pre["tool_input"] == {"command": "ls", "description": "List files"}
    post = inputs.build("PostToolUse", {})
    assert list(post)[6:] == [
        "tool_name",
        "tool_input",
        "tool_use_id",
        "tool_response",
        "duration_ms",
    ]
    assert set(post["tool_response"]) == {
        "stdout",
        "stderr",
        "interrupted",
        "isImage",
        "noOutputExpected",
    }
    assert "tool_use_id" not in inputs.build("PermissionRequest", {})
    assert "permission_mode" not in inputs.build("SessionEnd", {})
    start = inputs.build("SessionStart", {})
    assert "prompt_id" not in start and start["source"] == "startup"
    stop = inputs.build("Stop", {})
    assert list(stop)[6:] == [
        "stop_hook_active",
        "last_assistant_message",
        "background_tasks",
        "session_crons",
    ]


@pytest.mark.req("R-706")
def test_fields_are_overridden_and_omitted() -> None:
    inputs = Inputs()
    write = inputs.build("PreToolUse", {"tool_name": "Write"})
    assert write["tool_input"]["file_path"] == os.path.join(os.getcwd(), "notes.md")
    assert inputs.build("PreToolUse", {"permission_mode": "plan"})["permission_mode"] == "plan"
    assert "prompt_id" not in inputs.build("Stop", {"prompt_id": OMIT})
    ids = {inputs.build("PreToolUse", {})["tool_use_id"] for _ in range(3)}
    assert len(ids) == 3
    newer = inputs.build("Stop", {}, extra={"added_in_a_later_cli": 1})
    assert newer["added_in_a_later_cli"] == 1


@pytest.mark.req("R-706")
@pytest.mark.parametrize(
    ("event", "fields", "message"),
    [
        ("PreToolUze", {}, "'PreToolUze' is not a hook event (did you mean 'PreToolUse'?)"),
        (
            "PreToolUse",
            {"tool_nme": "Bash"},
            "PreToolUse input has no field 'tool_nme' (did you mean 'tool_name'?)",
        ),
        (
            "PreToolUse",
            {"tool_name": 3},
            "input.tool_name: expected string, got integer for PreToolUse",
        ),
        (
            "PreToolUse",
            {"tool_input": "not a dict"},
            "input.tool_input: expected object, got string for PreToolUse",
        ),
        (
            "PermissionRequest",
            {"tool_input": ["ls"]},
            "input.tool_input: expected object, got array for PermissionRequest",
        ),
        (
            "Stop",
            {"stop_hook_active": OMIT},
            "input.stop_hook_active: required field missing for Stop",
        ),
        (
            "Stop",
            {"hook_event_name": "Stopp"},
            "input.hook_event_name: 'Stopp' does not match the event Stop",
        ),
    ],
)
def test_an_input_the_cli_would_never_send_is_refused(
    event: str, fields: dict[str, object], message: str
) -> None:
    with pytest.raises(InputError) as caught:
        Inputs().build(event, fields)
    assert str(caught.value).startswith(message)
