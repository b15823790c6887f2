"""Reading any protocol message leniently (``wire.classify``), and the request encoders."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hookd import wire

BODY = {"subtype": "hook_callback", "callback_id": "hook_1", "input": {"x": 1}}
PARAMS: dict[str, Any] = {"callback_id": "hook_1"}
RPC: dict[str, Any] = {"jsonrpc": "2.0", "id": 7, "method": "hook_callback", "params": PARAMS}


def test_requests_in_both_framings() -> None:
    control = wire.classify({"type": "control_request", "request_id": "r1", "request": BODY})
    assert control == wire.Classified("request", "control", "r1", "hook_callback", BODY)
    rpc = wire.classify(RPC)
    assert rpc == wire.Classified("request", "jsonrpc", 7, "hook_callback", RPC["params"])
    notification = wire.classify({"jsonrpc": "2.0", "method": "initialize"})
    assert notification is not None and notification.notification
    assert notification.request_id is None and notification.body is None


def test_broken_requests_are_still_requests() -> None:
    seen = wire.classify({"type": "control_request", "request": "nonsense"})
    assert seen == wire.Classified("request", "control")
    odd = wire.classify({"jsonrpc": "2.0", "id": "a", "method": 3, "params": [1]})
    assert odd == wire.Classified("request", "jsonrpc", "a")


def test_cancels_name_the_request_they_withdraw() -> None:
    assert wire.classify({"type": "control_cancel_request", "request_id": "r1"}) == (
        wire.Classified("cancel", "control", "r1")
    )
    rpc = {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 4}}
    assert wire.classify(rpc) == wire.Classified("cancel", "jsonrpc", 4)


@pytest.mark.parametrize(
    ("msg", "success", "payload", "error"),
    [
        (
            {"type": "control_response", "response": {"subtype": "success", "request_id": "r",
                                                      "response": {"a": 1}}},
            True, {"a": 1}, None,
        ),
        (
            {"type": "control_response", "response": {"subtype": "error", "request_id": "r",
                                                      "error": "boom", "error_code": "x"}},
            False, None, "boom",
        ),
        ({"jsonrpc": "2.0", "id": "r", "result": {"a": 1}}, True, {"a": 1}, None),
        ({"jsonrpc": "2.0", "id": "r", "error": {"code": -1}}, False, None, {"code": -1}),
    ],
)  # fmt: skip
def test_responses_carry_a_payload_or_an_error(
    msg: dict[str, Any], success: bool, payload: Any, error: Any
) -> None:
    seen = wire.classify(msg)
    assert seen is not None
    assert (seen.kind, seen.request_id) == ("response", "r")
    assert (seen.success, seen.payload, seen.error) == (success, payload, error)


@pytest.mark.parametrize(
    "msg",
    [{"type": "assistant"}, {"type": "result"}, {}, [RPC], "text", None, {"jsonrpc": "2.0"}],
)
def test_anything_else_is_none(msg: Any) -> None:
    assert wire.classify(msg) is None


def test_with_payload_and_with_body_copy_in_either_framing() -> None:
    control: dict[str, Any] = {"type": "control_response", "response": {
        "subtype": "success", "request_id": "r", "response": {"hooks": {}}}}  # fmt: skip
    changed = wire.with_payload(control, {"hooks": {"Stop": []}})
    assert changed["response"]["response"] == {"hooks": {"Stop": []}}
    assert control["response"]["response"] == {"hooks": {}}
    rpc = {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert wire.with_payload(rpc, {"x": 1}) == {"jsonrpc": "2.0", "id": 1, "result": {"x": 1}}
    error = {"jsonrpc": "2.0", "id": 1, "error": {}}
    assert wire.with_payload(error, {"x": 1}) is error
    renamed = wire.with_body(RPC, {"callback_id": "hook_2"})
    assert (
        renamed["params"] == {"callback_id": "hook_2"} and RPC["params"]["callback_id"] == "hook_1"
    )


def test_encode_initialize_and_requests_decode_back() -> None:
    line = wire.encode_initialize("i1")
    assert json.loads(line) == {
        "type": "control_request",
        "request_id": "i1",
        "request": {"subtype": "initialize"},
    }
    assert wire.decode_line(line.rstrip(b"\n")) == wire.Call("control", "i1", wire.Initialize())
    rpc = wire.encode_initialize(3, "jsonrpc")
    assert json.loads(rpc) == {"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {}}
    call = wire.HookCallback("hook_1", {"x": 1})
    for framing in ("control", "jsonrpc"):
        encoded = wire.encode_request("r", call, framing)
        assert wire.decode_line(encoded.rstrip(b"\n")) == wire.Call(framing, "r", call)
        seen = wire.classify(json.loads(encoded))
        assert seen is not None and (seen.kind, seen.name) == ("request", "hook_callback")
