"""The envelope schemas hold what the encoder writes, in both framings."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from hookd import wire
from hookd.wire.envelope_schemas import ENVELOPES
from hookd.wire.errors import ErrorKind


def _errors(name: str, line: bytes) -> list[str]:
    validator = Draft202012Validator(ENVELOPES[name])
    return [e.message for e in validator.iter_errors(json.loads(line))]


@pytest.mark.parametrize(
    ("framing", "request_id", "name"),
    [("control", "r1", "envelope/control-response"), ("jsonrpc", 7, "envelope/jsonrpc-response")],
)
def test_success_answers_match_their_envelope(
    framing: wire.Framing, request_id: str | int, name: str
) -> None:
    line = wire.encode_success(framing, request_id, {"continue": True})
    assert _errors(name, line) == []


@pytest.mark.parametrize("kind", list(ErrorKind))
def test_every_error_kind_matches_both_error_envelopes(kind: ErrorKind) -> None:
    control = wire.encode_message(wire.error_object("control", "r1", kind, "why"))
    rpc = wire.encode_message(wire.error_object("jsonrpc", 7, kind, "why"))
    assert _errors("envelope/control-response", control) == []
    assert _errors("envelope/jsonrpc-error", rpc) == []


def test_the_envelopes_refuse_what_the_wire_never_carries() -> None:
    assert _errors("envelope/jsonrpc-error", b'{"jsonrpc": "2.0", "id": 1, "error": {}}')
    assert _errors("envelope/control-request", b'{"type": "control_request", "request": {}}')
    request = (
        b'{"type": "control_request", "request_id": "a", "request": {"subtype": "hook_callback"}}'
    )
    assert _errors("envelope/control-request", request)  # no callback_id, no input
