"""The JSON Schemas: valid Draft 2020-12, committed as generated, and true to the wire."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from hookd import wire
from hookd.cli.schema import schema_main
from hookd.events import EVENTS
from hookd.published import (
    BASE_URI,
    DIALECT,
    get_schema,
    render_schema,
    schema_names,
    write_schemas,
)
from hookd.wire.errors import ErrorKind

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "schemas"
ENVELOPES = [
    "envelope/control-request",
    "envelope/control-response",
    "envelope/control-cancel-request",
    "envelope/jsonrpc-request",
    "envelope/jsonrpc-response",
    "envelope/jsonrpc-error",
]


def test_one_schema_per_envelope_and_two_per_event() -> None:
    names = schema_names()
    assert names[: len(ENVELOPES)] == ENVELOPES
    events = [f"events/{e}.{kind}" for e in EVENTS for kind in ("input", "output")]
    assert names[len(ENVELOPES) :] == events
    assert len(names) == 6 + 2 * 33


@pytest.mark.parametrize("name", schema_names())
def test_each_schema_is_a_valid_draft_2020_12_schema(name: str) -> None:
    schema = get_schema(name)
    assert schema["$schema"] == DIALECT
    assert schema["$id"] == f"{BASE_URI}{name}.json"
    assert schema["title"]
    Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("name", schema_names())
def test_the_committed_file_is_what_the_code_generates(name: str) -> None:
    path = SCHEMAS / f"{name}.json"
    assert path.read_text(encoding="utf-8") == render_schema(name), (
        f"{path} is stale: run `hookd schema --write schemas`"
    )


def test_no_stray_schema_files() -> None:
    found = (str(p.relative_to(SCHEMAS).with_suffix("")) for p in SCHEMAS.rglob("*.json"))
    on_disk = sorted(n for n in found if not n.startswith("agents/"))  # written by hand
    assert on_disk == sorted(schema_names())


def test_write_schemas_writes_every_file(tmp_path: Path) -> None:
    paths = write_schemas(tmp_path / "out")
    assert len(paths) == len(schema_names())
    for name, path in zip(schema_names(), paths, strict=True):
        assert path == tmp_path / "out" / f"{name}.json"
        assert json.loads(path.read_text(encoding="utf-8")) == get_schema(name)


def test_get_schema_returns_a_copy() -> None:
    get_schema("events/Stop.output")["title"] = "changed"
    assert get_schema("events/Stop.output")["title"] == "Stop hook output"


@pytest.mark.parametrize("name", ["", "events/Stop", "events/Nope.input", "Stop.input", "x/y"])
def test_unknown_schema_names(name: str) -> None:
    with pytest.raises(KeyError):
        get_schema(name)


def test_event_schemas_inline_no_unreached_definitions() -> None:
    schema = get_schema("events/SessionEnd.input")
    assert schema["required"] == [
        "session_id",
        "transcript_path",
        "cwd",
        "hook_event_name",
        "reason",
    ]
    assert set(schema["$defs"]) == {"Effort"}
    output = get_schema("events/SessionEnd.output")
    assert set(output["$defs"]) == {"SessionEndOutput", "AsyncOutput"}
    assert "discriminator" not in json.dumps(get_schema("events/PermissionRequest.output"))


def test_enums_keep_their_declared_order() -> None:
    defs = get_schema("events/PreToolUse.output")["$defs"]
    decision = defs["PreToolUseHookSpecificOutput"]["properties"]["permissionDecision"]
    assert decision["enum"] == ["allow", "deny", "ask", "defer"]


# --------------------------------------------------------------------------- envelopes

CALLBACK: dict[str, Any] = {
    "subtype": "hook_callback",
    "callback_id": "hook_1",
    "input": {},
    "tool_use_id": None,
}

# (schema, message, valid)
ENVELOPE_CASES: list[tuple[str, Any, bool]] = [
    ("control-request", {"type": "control_request", "request_id": "r", "request": CALLBACK}, True),
    ("control-request", {"type": "control_request", "request_id": "r", "request": {}}, False),
    ("control-request", {"type": "control_request", "request": CALLBACK}, False),
    ("control-request", {"type": "control_request", "request_id": 7, "request": CALLBACK}, False),
    (
        "control-request",
        {"type": "control_request", "request_id": "r", "request": {"subtype": "hook_callback"}},
        False,
    ),
    (
        "control-request",
        {
            "type": "control_request",
            "request_id": "r",
            "request": {"subtype": "can_use_tool", "tool_name": "Bash", "input": {}},
            "added_later": 1,
        },
        True,
    ),
    (
        "control-request",
        {"type": "control_request", "request_id": "r", "request": {"subtype": "initialize"}},
        True,
    ),
    (
        "control-response",
        {"type": "control_response", "response": {"subtype": "success", "request_id": "r"}},
        True,
    ),
    (
        "control-response",
        {
            "type": "control_response",
            "response": {"subtype": "error", "request_id": "r", "error": "x", "error_code": "c"},
        },
        True,
    ),
    (
        "control-response",
        {"type": "control_response", "response": {"subtype": "error", "request_id": "r"}},
        False,
    ),
    (
        "control-response",
        {"type": "control_response", "response": {"subtype": "maybe", "request_id": "r"}},
        False,
    ),
    ("control-cancel-request", {"type": "control_cancel_request", "request_id": "r"}, True),
    ("control-cancel-request", {"type": "control_cancel_request"}, False),
    ("jsonrpc-request", {"jsonrpc": "2.0", "id": 1, "method": "hook_callback", "params": {}}, True),
    ("jsonrpc-request", {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 1}}, True),
    ("jsonrpc-request", {"jsonrpc": "1.0", "id": 1, "method": "m"}, False),
    ("jsonrpc-request", {"jsonrpc": "2.0", "id": 1.5, "method": "m"}, False),
    ("jsonrpc-response", {"jsonrpc": "2.0", "id": "a", "result": {}}, True),
    ("jsonrpc-response", {"jsonrpc": "2.0", "id": "a"}, False),
    ("jsonrpc-response", {"jsonrpc": "2.0", "id": "a", "result": {}, "error": {}}, False),
    (
        "jsonrpc-error",
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "m", "data": {}}},
        False,
    ),
    (
        "jsonrpc-error",
        {
            "jsonrpc": "2.0",
            "id": 3,
            "error": {"code": -32001, "message": "m", "data": {"error_code": "nope"}},
        },
        False,
    ),
]


@pytest.mark.parametrize(("name", "message", "valid"), ENVELOPE_CASES)
def test_envelope_examples(name: str, message: Any, valid: bool) -> None:
    assert Draft202012Validator(get_schema(f"envelope/{name}")).is_valid(message) is valid


@pytest.mark.req("R-010")
@pytest.mark.parametrize("kind", list(ErrorKind))
@pytest.mark.parametrize("framing", ["control", "jsonrpc"])
def test_what_hookd_writes_fits_the_envelope_schemas(
    kind: ErrorKind, framing: wire.Framing
) -> None:
    suffix = "error" if framing == "jsonrpc" else "response"
    error = json.loads(wire.encode_message(wire.error_object(framing, "r1", kind, "text")))
    assert _valid(f"envelope/{framing}-{suffix}", error)
    success = json.loads(wire.encode_success(framing, 7 if framing == "jsonrpc" else "r1", {}))
    assert _valid(f"envelope/{framing}-response", success)


def _valid(name: str, message: Any) -> bool:
    validator = Draft202012Validator(get_schema(name))
    return not list(validator.iter_errors(message))


# ------------------------------------------------------------------------------ CLI


def test_schema_lists_names(capsys: pytest.CaptureFixture[str]) -> None:
    assert schema_main(None, None) == 0
    assert capsys.readouterr().out.splitlines() == schema_names()


@pytest.mark.parametrize("name", ["events/PreToolUse.output", "events/PreToolUse.output.json"])
def test_schema_prints_one(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert schema_main(name, None) == 0
    assert capsys.readouterr().out == render_schema("events/PreToolUse.output")


def test_schema_refuses_an_unknown_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert schema_main("events/Nope.input", None) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "no schema 'events/Nope.input'" in captured.err


def test_schema_writes_the_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert schema_main(None, str(tmp_path)) == 0
    assert capsys.readouterr().out == f"wrote {len(schema_names())} schemas under {tmp_path}\n"
    written = (tmp_path / "envelope" / "jsonrpc-error.json").read_text(encoding="utf-8")
    assert written == render_schema("envelope/jsonrpc-error")
