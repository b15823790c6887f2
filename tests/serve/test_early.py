"""Early ``initialize``: answered from the first read, before the server runs."""

from __future__ import annotations

import json
import os
import select
from typing import Any

from hookd.core.registry import Registry
from hookd.serve.early import answer_early, import_in_background, initialize_payload
from hookd.serve.stdio import write_all


def _registry() -> Registry:
    registry = Registry()

    async def stop(input_data: object, tool_use_id: str | None, ctx: object) -> None:
        return None

    registry.add("Stop", stop)
    return registry


def _answers(fd: int) -> list[Any]:
    out = b""
    while select.select([fd], [], [], 0)[0]:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        out += chunk
    return [json.loads(line) for line in out.splitlines()]


def test_initialize_at_the_head_is_answered_and_the_rest_handed_on() -> None:
    registry = _registry()
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    try:
        init = {"type": "control_request", "request_id": "i1", "request": {"subtype": "initialize"}}
        rpc_note = {"jsonrpc": "2.0", "method": "initialize"}  # a notification: no answer
        hook = b'{"type":"control_request","request_id":"h","request":{"subtype":"x"}}\n'
        write_all(in_w, (json.dumps(init) + "\n\n" + json.dumps(rpc_note) + "\n").encode() + hook)
        rest = answer_early(registry, in_r, out_w)
        assert rest == hook  # the first non-initialize line and all after it: the server's
        (answer,) = _answers(out_r)
        assert answer["response"]["request_id"] == "i1"
        assert answer["response"]["response"] == initialize_payload(registry)
        assert initialize_payload(registry)["hooks"]["Stop"][0]["hookCallbackIds"] == ["hook_1"]
    finally:
        for fd in (in_r, in_w, out_r, out_w):
            os.close(fd)


def test_an_unfinished_line_is_handed_on_whole() -> None:
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    try:
        write_all(in_w, b'{"type":"control_req')
        assert answer_early(_registry(), in_r, out_w) == b'{"type":"control_req'
        assert _answers(out_r) == []
    finally:
        for fd in (in_r, in_w, out_r, out_w):
            os.close(fd)


def test_modules_import_in_a_background_thread() -> None:
    thread = import_in_background("json", "hookd.wire")
    thread.join(30)
    assert not thread.is_alive()
