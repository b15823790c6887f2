"""Codec layer: bytes in, messages out; answers back to bytes. No I/O, no trio."""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc

import pytest

from hookd import wire
from hookd.wire.errors import ErrorKind

HOOK = (
    b'{"type":"control_request","request_id":"r1","request":{"subtype":"hook_callback",'
    b'"callback_id":"hook_1","input":{"x":1},"tool_use_id":"t1"}}'
)


@pytest.mark.req("R-030")
def test_hook_callback_decodes_to_a_call() -> None:
    msg = wire.decode_line(HOOK)
    assert msg == wire.Call("control", "r1", wire.HookCallback("hook_1", {"x": 1}, "t1"))


@pytest.mark.req("R-093")
def test_unknown_fields_are_accepted() -> None:
    line = (
        b'{"type":"control_request","request_id":"r","extra":1,"request":{"subtype":'
        b'"hook_callback","callback_id":"h","input":{},"new_field":[1]}}'
    )
    assert isinstance(wire.decode_line(line), wire.Call)


@pytest.mark.req("R-040")
def test_cancel() -> None:
    msg = wire.decode_line(b'{"type":"control_cancel_request","request_id":"r1"}')
    assert msg == wire.Cancel("control", "r1")


@pytest.mark.req("R-033", "R-034")
@pytest.mark.parametrize(
    ("line", "kind", "request_id", "answer"),
    [
        (
            b'{"type":"control_request","request_id":"r","request":{"subtype":"mcp_message"}}',
            ErrorKind.UNSUPPORTED_REQUEST,
            "r",
            True,
        ),
        (
            b'{"type":"control_request","request_id":"r","request":{"subtype":"hook_callback",'
            b'"input":{}}}',
            ErrorKind.INVALID_REQUEST,
            "r",
            True,
        ),
        (
            b'{"type":"control_request","request_id":"r","request":{"callback_id":"x"}}',
            ErrorKind.INVALID_REQUEST,
            "r",
            True,
        ),
        (b'{"type":"control_request","request_id":"r"}', ErrorKind.INVALID_REQUEST, "r", True),
        (
            b'{"type":"control_request","request":{"subtype":"initialize"}}',
            ErrorKind.INVALID_REQUEST,
            None,
            False,
        ),
        (
            b'{"type":"control_request","request_id":"r","request":{"subtype":"hook_callback",'
            b'"callback_id":5,"input":{}}}',
            ErrorKind.INVALID_REQUEST,
            "r",
            True,
        ),
        (b'{"type": "control_req', ErrorKind.PARSE_ERROR, None, False),
        (b'{"jsonrpc":"2.0","id":3,"method":"nope"}', ErrorKind.UNSUPPORTED_REQUEST, 3, True),
        (
            b'{"jsonrpc":"2.0","id":3,"method":"hook_callback","params":[1]}',
            ErrorKind.INVALID_PARAMS,
            3,
            True,
        ),
        (
            b'{"jsonrpc":"2.0","id":3,"method":"hook_callback","params":{"input":{}}}',
            ErrorKind.INVALID_PARAMS,
            3,
            True,
        ),
        (b'{"jsonrpc":"1.0","id":3,"method":"hook_callback"}', ErrorKind.INVALID_REQUEST, 3, True),
        (b'{"jsonrpc":"2.0", broken', ErrorKind.PARSE_ERROR, None, True),
        (b"[]", ErrorKind.INVALID_REQUEST, None, True),
    ],
)
def test_broken_requests_become_invalid(
    line: bytes, kind: ErrorKind, request_id: str | int | None, answer: bool
) -> None:
    msg = wire.decode_line(line)
    assert isinstance(msg, wire.Invalid), msg
    assert (msg.kind, msg.request_id, msg.answer) == (kind, request_id, answer)


@pytest.mark.req("R-034")
def test_missing_callback_id_names_the_field() -> None:
    line = b'{"type":"control_request","request_id":"r","request":{"subtype":"hook_callback"}}'
    msg = wire.decode_line(line)
    assert isinstance(msg, wire.Invalid)
    assert "callback_id" in msg.message


@pytest.mark.req("R-002")
@pytest.mark.parametrize(
    "line",
    [
        b'{"type":"keep_alive"}',
        b'{"type":"system","subtype":"init"}',
        b'"text"',
        b"42",
        b'{"type":"control_response","response":{"subtype":"success","request_id":"x"}}',
    ],
)
def test_other_messages_pass_through(line: bytes) -> None:
    assert isinstance(wire.decode_line(line), wire.Passthrough)


@pytest.mark.req("R-010", "R-011", "R-013")
def test_jsonrpc_request_notification_and_cancel() -> None:
    req = wire.decode_line(b'{"jsonrpc":"2.0","id":"a","method":"initialize"}')
    assert req == wire.Call("jsonrpc", "a", wire.Initialize())
    note = wire.decode_line(
        b'{"jsonrpc":"2.0","method":"hook_callback","params":{"callback_id":"h","input":{}}}'
    )
    assert isinstance(note, wire.Call) and note.request_id is None
    cancel = wire.decode_line(b'{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":4}}')
    assert cancel == wire.Cancel("jsonrpc", 4)
    dispatch = wire.decode_line(
        b'{"jsonrpc":"2.0","id":1,"method":"hooks/dispatch","params":{"event":"Stop","input":{}}}'
    )
    assert isinstance(dispatch, wire.Call) and isinstance(dispatch.body, wire.HookDispatch)


@pytest.mark.req("R-012")
def test_jsonrpc_batch_is_a_list() -> None:
    batch = wire.decode_line(b'[{"jsonrpc":"2.0","id":1,"method":"initialize"}, 5]')
    assert isinstance(batch, list) and len(batch) == 2
    assert isinstance(batch[0], wire.Call) and isinstance(batch[1], wire.Invalid)


@pytest.mark.req("R-010")
def test_encode_success_and_error_shapes() -> None:
    ok = json.loads(wire.encode_success("control", "r1", {"continue": True}))
    assert ok == {
        "type": "control_response",
        "response": {"subtype": "success", "request_id": "r1", "response": {"continue": True}},
    }
    err = json.loads(
        wire.encode_message(wire.error_object("control", "r1", ErrorKind.UNKNOWN_CALLBACK, "nope"))
    )
    assert err == {
        "type": "control_response",
        "response": {
            "subtype": "error",
            "request_id": "r1",
            "error": "nope",
            "error_code": "unknown_callback",
        },
    }
    rpc = json.loads(
        wire.encode_message(wire.error_object("jsonrpc", 7, ErrorKind.HOOK_TIMEOUT, "slow"))
    )
    assert rpc == {
        "jsonrpc": "2.0",
        "id": 7,
        "error": {"code": -32003, "message": "slow", "data": {"error_code": "hook_timeout"}},
    }
    assert wire.encode_success("jsonrpc", 7, {}).endswith(b"}\n")


def test_unencodable_payload_raises_type_error() -> None:
    with pytest.raises(TypeError):
        wire.encode_success("control", "r", {"x": object()})


# ------------------------------------------------------------------------- framing


@pytest.mark.req("R-001")
def test_framer_reassembles_lines_split_across_reads() -> None:
    framer = wire.LineFramer()
    data = HOOK + b"\r\n\n   \n" + HOOK + b"\n"
    out: list[bytes | wire.Oversize] = []
    for i in range(len(data)):
        out += framer.feed(data[i : i + 1])
    assert out == [HOOK, HOOK]
    assert framer.close() is None  # nothing left over


@pytest.mark.req("R-001")
def test_framer_yields_a_final_line_without_newline_at_close() -> None:
    framer = wire.LineFramer()
    assert list(framer.feed(b'{"a":1}\n{"b"')) == [b'{"a":1}']
    assert framer.close() == b'{"b"'


@pytest.mark.req("R-003")
def test_framer_memory_stays_bounded_while_skipping_an_oversize_line() -> None:
    framer = wire.LineFramer(max_line_bytes=1000)
    chunk = b"a" * (1 << 20)
    tracemalloc.start()
    try:
        for _ in range(32):  # a 32 MiB line, in 1 MiB reads
            assert list(framer.feed(chunk)) == []
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * len(chunk)
    big = framer.close()
    assert isinstance(big, wire.Oversize) and big.size == 32 * len(chunk)


@pytest.mark.req("R-003", "R-121")
def test_framer_discards_oversize_lines_and_keeps_going() -> None:
    framer = wire.LineFramer(max_line_bytes=100)
    head = b'{"type":"control_request","request_id":"big","request":{"x":"'
    out = list(framer.feed(head + b"a" * 60))
    out += framer.feed(b"a" * 500)
    out += framer.feed(b'"}}\n{"ok":1}\n')
    assert len(out) == 2
    big, ok = out
    assert isinstance(big, wire.Oversize) and big.size == len(head) + 563
    assert wire.recover_id(big.head) == ("control", "big")
    assert ok == b'{"ok":1}'


@pytest.mark.req("R-003")
def test_oversize_complete_line_in_one_read() -> None:
    framer = wire.LineFramer(max_line_bytes=10)
    out = list(framer.feed(b'{"jsonrpc":"2.0","id":12,"method":"x"}\nshort\n'))
    assert isinstance(out[0], wire.Oversize)
    assert wire.recover_id(out[0].head) == ("jsonrpc", 12)
    assert out[1] == b"short"


def test_codec_imports_neither_trio_nor_structlog() -> None:
    code = (
        "import sys, hookd.wire; "
        "bad = [m for m in ('trio', 'structlog', 'jsonschema') if m in sys.modules]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.req("R-050")
def test_error_codes_are_unique() -> None:
    codes = [k.error_code for k in ErrorKind]
    rpc = [k.jsonrpc_code for k in ErrorKind]
    assert len(set(codes)) == len(codes) and len(set(rpc)) == len(rpc)
