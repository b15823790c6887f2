"""The testing kit's Codex payloads are what Codex sends: each fits Codex's own closed input
schema for its event (schemas/agents/codex/input.json, taken from the 0.169 binary), as do the
payloads the real CLI sent in the recorded session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft7Validator

from hookd.agents import codex
from hookd.testing import load

ROOT = Path(__file__).resolve().parents[2]
INPUTS = json.loads((ROOT / "schemas" / "agents" / "codex" / "input.json").read_text())
RECORDED = ROOT / "conformance" / "transcripts" / "agents" / "codex.jsonl"
GUARD = ROOT / "conformance" / "hooks" / "agents_guard.py"
#: What each event needs beside the kit's defaults.
FIELDS: dict[str, dict[str, Any]] = {
    "PreToolUse": {"tool_name": "Bash", "tool_input": {"command": "ls"}},
    "PermissionRequest": {"tool_name": "Bash", "tool_input": {"command": "ls"}},
    "PostToolUse": {"tool_name": "Bash", "tool_input": {"command": "ls"}},
    "SubagentStart": {"agent_id": "a1", "agent_type": "worker"},
    "SubagentStop": {"agent_id": "a1", "agent_type": "worker"},
}


def problems(event: str, payload: dict[str, Any]) -> list[str]:
    """Where ``payload`` breaks Codex's input schema for ``event`` (empty: it fits)."""
    schema = {**INPUTS, "$ref": f"#/definitions/{event}"}
    return [e.message for e in Draft7Validator(schema).iter_errors(payload)]


def test_the_schema_holds_every_event_codex_sends() -> None:
    Draft7Validator.check_schema(INPUTS)
    assert set(codex.EVENTS) | {"Interrupt"} <= set(INPUTS["definitions"])


@pytest.mark.req("R-A06", "R-A24")
@pytest.mark.parametrize("event", sorted(codex.EVENTS))
def test_the_kits_codex_payload_fits_codexs_input_schema(event: str) -> None:
    result = load(str(GUARD)).fire_sync(event, agent="codex", **FIELDS.get(event, {}))
    assert result.payload is not None
    assert problems(event, result.payload) == []


@pytest.mark.req("R-A06", "R-A24")
def test_a_bash_result_reaches_post_tool_use_as_codex_sends_it() -> None:
    response = {"stdout": "out\n", "stderr": "err\n", "interrupted": False, "isImage": False}
    fields = {**FIELDS["PostToolUse"], "tool_response": response}
    result = load(str(GUARD)).fire_sync("PostToolUse", agent="codex", **fields)
    assert result.payload is not None
    assert result.payload["tool_response"] == "out\nerr\n"  # the command's output, as text


def test_the_recorded_payloads_fit_codexs_input_schema() -> None:
    _, *calls = (json.loads(line) for line in RECORDED.read_text().splitlines())
    for call in calls:
        assert problems(call["agent_event"], call["payload"]) == [], call
