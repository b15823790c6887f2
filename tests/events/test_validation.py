"""Output and input validation: the corpus, the fast and the schema paths agreeing, messages."""

from __future__ import annotations

import functools
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from hookd.cli.schema import validate_main
from hookd.core import api, policy
from hookd.errors import InvalidOutputError
from hookd.events import EVENTS, input_type, output_type
from hookd.events.validation import check_input, prepare_output, validate_output
from hookd.published import get_schema

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).resolve().parents[1] / "data" / "schema_corpus"
TRANSCRIPTS = sorted((ROOT / "conformance" / "transcripts").glob("v[0-9]*.jsonl"))


def _load(name: str) -> list[dict[str, Any]]:
    lines = (CORPUS / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


INPUTS = _load("inputs.jsonl")
OUTPUTS = _load("outputs.jsonl")


def _id(item: dict[str, Any]) -> str:
    return f"{item['event']}-{'valid' if item['valid'] else 'invalid'}"


@functools.cache
def _schema_validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(get_schema(name))


def _fast_input_ok(event: str, value: Any) -> bool:
    try:
        msgspec.convert(value, input_type(event))
    except msgspec.ValidationError:
        return False
    return True


def _fast_output_ok(event: str, value: Any) -> bool:
    is_async = isinstance(value, dict) and "async" in value
    try:
        msgspec.convert(value, output_type(event, is_async=is_async))
    except msgspec.ValidationError:
        return False
    return True


# ----------------------------------------------------------------------------- corpus


@pytest.mark.parametrize(("corpus", "events_needed"), [(INPUTS, EVENTS), (OUTPUTS, EVENTS)])
def test_the_corpus_has_a_valid_and_an_invalid_item_per_event(
    corpus: list[dict[str, Any]], events_needed: Any
) -> None:
    for valid in (True, False):
        assert {i["event"] for i in corpus if i["valid"] is valid} == set(events_needed)


@pytest.mark.req("R-093")
@pytest.mark.parametrize("item", INPUTS, ids=_id)
def test_input_corpus(item: dict[str, Any]) -> None:
    event, value = item["event"], item["input"]
    assert check_input(event, value) == item.get("message")
    fast = _fast_input_ok(event, value)
    schema = _schema_validator(f"events/{event}.input").is_valid(value)
    assert fast == schema == item["valid"]


@pytest.mark.req("R-091", "R-094")
@pytest.mark.parametrize("item", OUTPUTS, ids=_id)
def test_output_corpus(item: dict[str, Any]) -> None:
    event, value = item["event"], item["output"]
    assert validate_output(event, value) == item.get("message")
    fast = _fast_output_ok(event, value)
    schema = _schema_validator(f"events/{event}.output").is_valid(value)
    assert fast == schema == item["valid"]


# ------------------------------------------------------------- agreement, generated


_WORDS = ["allow", "deny", "ask", "defer", "block", "approve", "accept", "cancel", "behavior"]
_WORDS += ["setMode", "addRules", "session", "plan", "maybe", "", "PreToolUse", "Stop"]


def _output_keys() -> list[str]:
    keys: set[str] = {"async", "asyncTimeout", "contineu", "permisionDecision", "type"}
    for event in EVENTS:
        for definition in get_schema(f"events/{event}.output")["$defs"].values():
            keys |= set(definition.get("properties", {}))
    return sorted(keys)


_KEYS = _output_keys()
_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(-2, 2, allow_nan=False)
    | st.sampled_from(_WORDS)
)
_VALUES = st.recursive(
    _LEAVES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(_KEYS), inner),
    max_leaves=6,
)


@st.composite
def _outputs(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    event = draw(st.sampled_from(list(EVENTS)))
    output = draw(st.dictionaries(st.sampled_from(_KEYS), _VALUES, max_size=4))
    if draw(st.booleans()):
        specific = draw(st.dictionaries(st.sampled_from(_KEYS), _VALUES, max_size=3))
        name = draw(st.sampled_from([event, event, "Stop"]))
        output["hookSpecificOutput"] = {"hookEventName": name, **specific}
    return event, output


@pytest.mark.req("R-094")
@settings(max_examples=200, deadline=None)
@given(_outputs())
def test_fast_path_and_schema_agree_on_generated_outputs(case: tuple[str, dict[str, Any]]) -> None:
    event, output = case
    fast = _fast_output_ok(event, output)
    assert fast == _schema_validator(f"events/{event}.output").is_valid(output)
    assert (validate_output(event, output) is None) == fast


_VALID_INPUTS = {i["event"]: i["input"] for i in INPUTS if i["valid"]}


@st.composite
def _inputs(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    event = draw(st.sampled_from(list(_VALID_INPUTS)))
    value = dict(_VALID_INPUTS[event])
    key = draw(st.sampled_from(sorted(value)))
    if draw(st.booleans()):
        del value[key]
    else:
        value[key] = draw(_VALUES)
    return event, value


@pytest.mark.req("R-093")
@settings(max_examples=200, deadline=None)
@given(_inputs())
def test_fast_path_and_schema_agree_on_generated_inputs(case: tuple[str, dict[str, Any]]) -> None:
    event, value = case
    fast = _fast_input_ok(event, value)
    assert fast == _schema_validator(f"events/{event}.input").is_valid(value)
    assert (check_input(event, value) is None) == fast


# ---------------------------------------------------------------------- prepare_output


@pytest.mark.req("R-092")
def test_a_missing_event_name_is_filled_in_without_touching_the_original() -> None:
    original = {"continue": True, "hookSpecificOutput": {"permissionDecision": "deny"}}
    prepared = prepare_output("PreToolUse", original)
    assert prepared == {
        "continue": True,
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"},
    }
    assert list(prepared["hookSpecificOutput"]) == ["hookEventName", "permissionDecision"]
    assert original == {"continue": True, "hookSpecificOutput": {"permissionDecision": "deny"}}


@pytest.mark.req("R-092")
def test_a_null_event_name_is_filled_in_too() -> None:
    prepared = prepare_output("Stop", {"hookSpecificOutput": {"hookEventName": None}})
    assert prepared == {"hookSpecificOutput": {"hookEventName": "Stop"}}


@pytest.mark.parametrize(
    "output", [{}, {"decision": "block", "reason": "r"}, api.deny("no"), {"async": True}]
)
def test_a_complete_output_is_returned_as_is(output: dict[str, Any]) -> None:
    assert prepare_output("PreToolUse", output) is output


@pytest.mark.req("R-092")
def test_an_event_name_naming_another_event_is_an_error_naming_both() -> None:
    with pytest.raises(InvalidOutputError) as info:
        prepare_output("PreToolUse", {"hookSpecificOutput": {"hookEventName": "PostToolUse"}})
    assert str(info.value) == (
        "hookSpecificOutput.hookEventName: 'PostToolUse' does not match the event PreToolUse"
    )


@pytest.mark.req("R-091")
@pytest.mark.parametrize(
    ("event", "output", "message"),
    [
        (
            "PreToolUse",
            {"hookSpecificOutput": {"permissionDecision": "maybe"}},
            "hookSpecificOutput.permissionDecision: 'maybe' is not one of allow, deny, ask, defer",
        ),
        (
            "PreToolUse",
            {"hookSpecificOutput": {"permisionDecision": "deny"}},
            "hookSpecificOutput: unknown field 'permisionDecision' "
            "(did you mean 'permissionDecision'?)",
        ),
        (
            "WorktreeCreate",
            {"hookSpecificOutput": {}},
            "hookSpecificOutput.worktreePath: required field missing",
        ),
        (
            "SessionEnd",
            {"hookSpecificOutput": {"additionalContext": "x"}},
            "output: unknown field 'hookSpecificOutput' (SessionEnd takes no hookSpecificOutput)",
        ),
        ("Stop", ["block"], "output: expected object, got array"),
    ],
)
def test_prepare_output_raises_naming_the_path_and_the_rule(
    event: str, output: Any, message: str
) -> None:
    with pytest.raises(InvalidOutputError) as info:
        prepare_output(event, output)
    assert str(info.value) == message


def test_a_value_json_cannot_hold_is_reported_from_msgspec() -> None:
    output = {"hookSpecificOutput": {"updatedInput": {1: "one"}}}
    with pytest.raises(InvalidOutputError) as info:
        prepare_output("PreToolUse", output)
    assert str(info.value) == ("hookSpecificOutput.updatedInput: Expected `str`, got `int` (a key)")


@pytest.mark.parametrize("event", ["SomeFutureEvent", "pretooluse", ""])
def test_an_unknown_event_only_needs_an_object(event: str) -> None:
    output = {"anything": {"goes": True}, "hookSpecificOutput": {"x": 1}}
    assert prepare_output(event, output) is output
    assert validate_output(event, output) is None
    assert check_input(event, {"whatever": 1}) is None
    with pytest.raises(InvalidOutputError, match="output: expected object, got string"):
        prepare_output(event, "allow")  # type: ignore[arg-type]


@pytest.mark.parametrize("event", list(EVENTS))
def test_what_hookd_answers_on_failure_is_valid(event: str) -> None:
    blocking = policy.blocking_output(event, "hookd: hook guard raised an exception: boom")
    if blocking is not None:
        assert prepare_output(event, blocking) == blocking
    aborting = policy.abort_output(event, "stop")
    assert prepare_output(event, aborting) == aborting


@pytest.mark.parametrize(
    ("event", "output"),
    [
        ("PreToolUse", api.allow("fine")),
        ("PreToolUse", api.deny("no")),
        ("PreToolUse", api.ask()),
        ("PreToolUse", api.update_input({"command": "ls"}, reason="safer")),
        ("PermissionRequest", api.deny("no", event="PermissionRequest")),
        ("PreModelSwitch", api.deny("too dear", event="PreModelSwitch")),
        ("Stop", api.block("tests fail")),
        ("SessionStart", api.add_context("hello")),
        ("PostToolUse", api.add_context("note", event="PostToolUse")),
    ],
)
def test_the_result_helpers_give_valid_outputs(event: str, output: dict[str, Any]) -> None:
    prepared = prepare_output(event, output)  # raises if the output is invalid
    assert validate_output(event, prepared) is None
    if "hookSpecificOutput" in output:
        assert prepared["hookSpecificOutput"]["hookEventName"] == event


# ----------------------------------------------------------------------------- inputs


@pytest.mark.req("R-093")
@pytest.mark.parametrize(
    ("event", "value", "message"),
    [
        ("PreToolUse", [], "input: expected object, got array for PreToolUse"),
        ("Stop", {}, "input.session_id: required field missing for Stop"),
        (
            "Stop",
            {"hook_event_name": "SubagentStop"},
            "input.hook_event_name: 'SubagentStop' does not match the event Stop",
        ),
    ],
)
def test_check_input_messages(event: str, value: Any, message: str) -> None:
    assert check_input(event, value) == message


def _transcript_traffic() -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(event, input, answer) of each hook_callback in the real transcripts."""
    found = []
    for path in TRANSCRIPTS:
        requests, answers = {}, {}
        for line in path.read_text(encoding="utf-8").splitlines():
            msg = json.loads(line)["msg"]
            if msg.get("type") == "control_request":
                if msg["request"]["subtype"] == "hook_callback":
                    requests[msg["request_id"]] = msg["request"]["input"]
            elif msg.get("type") == "control_response" and msg["response"]["subtype"] == "success":
                answers[msg["response"]["request_id"]] = msg["response"].get("response")
        for rid, hook_input in requests.items():
            if rid in answers:
                found.append((hook_input["hook_event_name"], hook_input, answers[rid]))
    return found


@pytest.mark.parametrize(
    ("event", "hook_input", "answer"), _transcript_traffic(), ids=lambda v: str(v)[:12]
)
def test_the_real_cli_traffic_is_valid(
    event: str, hook_input: dict[str, Any], answer: dict[str, Any]
) -> None:
    assert check_input(event, hook_input) is None
    assert _schema_validator(f"events/{event}.input").is_valid(hook_input)
    assert validate_output(event, answer) is None
    assert _schema_validator(f"events/{event}.output").is_valid(answer)


def test_the_real_transcripts_hold_every_answered_hook() -> None:
    events = sorted({event for event, _, _ in _transcript_traffic()})
    assert events == ["PostToolUse", "PreToolUse", "Stop", "UserPromptSubmit"]


# --------------------------------------------------------------------------- lightness

_PROBE = """
import sys
import hookd.events.validation as v
before = "jsonschema" in sys.modules
v.prepare_output("PreToolUse", {"hookSpecificOutput": {"permissionDecision": "allow"}})
after_valid = "jsonschema" in sys.modules
try:
    v.prepare_output("PreToolUse", {"hookSpecificOutput": {"permissionDecision": "maybe"}})
except Exception:
    pass
print(before, after_valid, "jsonschema" in sys.modules)
"""


def test_jsonschema_is_loaded_only_to_explain_a_failure() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.split() == ["False", "False", "True"]


# ------------------------------------------------------------------- hookd validate


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=lambda p: p.name)
def test_validate_passes_the_real_transcripts(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert validate_main(str(path), None) == 0
    (summary,) = capsys.readouterr().out.splitlines()
    assert summary.startswith(f"{path}: checked ")
    assert summary.endswith(" valid")


def _write(tmp_path: Path, *lines: Any) -> str:
    path = tmp_path / "data.jsonl"
    text = "".join(f"{line if isinstance(line, str) else json.dumps(line)}\n" for line in lines)
    path.write_text(text, encoding="utf-8")
    return str(path)


DENY = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}}


# (lines of the file, --event, (exit code, report lines after the file name))
OUTPUT_FILES: list[tuple[list[Any], str | None, tuple[int, list[str]]]] = [
    ([DENY], None, (0, [": checked 1: 1 valid"])),
    ([{"decision": "block"}], "Stop", (0, [": checked 1: 1 valid"])),
    (
        [{"decision": "maybe"}],
        "Stop",
        (
            1,
            [
                ":1: Stop output: decision: 'maybe' is not one of block, approve",
                ": checked 1: 0 valid, 1 invalid",
            ],
        ),
    ),
    (
        [{"decision": "block"}],
        None,
        (
            1,
            [
                ":1: cannot tell the event: give --event or set hookSpecificOutput.hookEventName",
                ": checked 1: 0 valid, 1 invalid",
            ],
        ),
    ),
    (
        [{"continue": True}, "{not json", DENY],
        "PreToolUse",
        (
            1,
            [
                ":2: invalid JSON: Expecting property name enclosed in double quotes: "
                "line 1 column 2 (char 1)",
                ": checked 3: 2 valid, 1 invalid",
            ],
        ),
    ),
    (
        [{"hookSpecificOutput": {"permissionDecision": "deny"}}],
        "PreToolUse",
        (
            0,  # filled in by hookd serve, so valid as served
            [": checked 1: 1 valid"],
        ),
    ),
    (
        [{"continue_": "no"}, {"continue_": False}],
        "Stop",
        (
            1,  # renamed to continue, as served
            [
                ":1: Stop output: continue: expected boolean, got string",
                ": checked 2: 1 valid, 1 invalid",
            ],
        ),
    ),
]


@pytest.mark.parametrize(("lines", "event", "expected"), OUTPUT_FILES)
def test_validate_outputs(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    lines: list[Any],
    event: str | None,
    expected: tuple[int, list[str]],
) -> None:
    code, report = expected
    path = _write(tmp_path, *lines)
    assert validate_main(path, event) == code
    assert capsys.readouterr().out.splitlines() == [path + line for line in report]


def test_validate_reads_one_pretty_printed_object(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "out.json"
    path.write_text(json.dumps(DENY, indent=2), encoding="utf-8")
    assert validate_main(str(path), None) == 0
    assert capsys.readouterr().out == f"{path}: checked 1: 1 valid\n"


def test_validate_reads_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO('{"continue": "no"}\n'))
    assert validate_main("-", "Stop") == 1
    assert capsys.readouterr().out.splitlines() == [
        "<stdin>:1: Stop output: continue: expected boolean, got string",
        "<stdin>: checked 1: 0 valid, 1 invalid",
    ]


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (None, "cannot read"),
        (b"", "holds no JSON"),
        (b"\n  \n", "holds no JSON"),
        (b"\xff{", "cannot read"),
    ],
)
def test_validate_refuses_unreadable_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes | None, problem: str
) -> None:
    path = tmp_path / "in.json"
    if content is not None:
        path.write_bytes(content)
    assert validate_main(str(path), None) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("hookd validate: ")
    assert str(path) in captured.err
    assert problem in captured.err


def _request(rid: str, hook_input: dict[str, Any]) -> dict[str, Any]:
    body = {"subtype": "hook_callback", "callback_id": "hook_1", "input": hook_input}
    msg = {"type": "control_request", "request_id": rid, "request": body}
    return {"dir": "cli->hookd", "t": 0.1, "msg": msg}


def _answer(rid: str, payload: Any, subtype: str = "success") -> dict[str, Any]:
    response = {"subtype": subtype, "request_id": rid}
    response |= {"response": payload} if subtype == "success" else {"error": payload}
    return {
        "dir": "hookd->cli",
        "t": 0.2,
        "msg": {"type": "control_response", "response": response},
    }


def _rpc(direction: str, msg: dict[str, Any]) -> dict[str, Any]:
    return {"dir": direction, "t": 0.3, "msg": {"jsonrpc": "2.0", **msg}}


BASE = {"session_id": "s", "transcript_path": "/t", "cwd": "/w"}
STOP = {**BASE, "hook_event_name": "Stop", "stop_hook_active": False}
PRE = {**BASE, "hook_event_name": "PreToolUse", "tool_input": {}, "tool_use_id": "t1"}


def test_validate_a_transcript(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dispatch = {"event": "Stop", "input": STOP}
    path = _write(
        tmp_path,
        {"dir": "cli->hookd", "t": 0.0, "msg": {"type": "system", "subtype": "init"}},
        _request("a", STOP),
        _answer("a", {"decision": "block", "reason": "r"}),
        _request("b", PRE),
        _answer("b", {"hookSpecificOutput": {"permissionDecision": "deny"}}),
        _request("c", {**STOP, "hook_event_name": "SomeFutureEvent"}),
        _answer("c", {"anything": 1}),
        _request("d", STOP),
        _answer("d", "hook failed", subtype="error"),
        _rpc("cli->hookd", {"id": 5, "method": "hooks/dispatch", "params": dispatch}),
        _rpc("hookd->cli", {"id": 5, "result": {"output": {"decision": "nope"}, "hooks": []}}),
        _answer("zz", {"decision": "nope"}),
    )
    assert validate_main(path, "PreToolUse") == 1
    assert capsys.readouterr().out.splitlines() == [
        f"{path}:4: request 'b': input.tool_name: required field missing for PreToolUse",
        f"{path}:5: answer to request 'b' (PreToolUse): "
        "hookSpecificOutput.hookEventName: required field missing",
        f"{path}:6: warning: request 'c': unknown event 'SomeFutureEvent': input not checked",
        f"{path}:7: warning: unknown event 'SomeFutureEvent': "
        "only checked that the output is an object",
        f"{path}:11: answer to request 5 (Stop): decision: 'nope' is not one of block, approve",
        f"{path}: checked 8: 5 valid, 3 invalid",
    ]
