"""The sans-IO layer of the HTTP transport: bytes in, requests and refusals out, answers out."""

from __future__ import annotations

import subprocess
import sys

import pytest

from hookd.serve.http.codec import (
    CLOSED,
    MAX_BODY_DEPTH,
    NEED_DATA,
    Codec,
    Head,
    Phase,
    Refusal,
    Request,
    decode_body,
)
from hookd.serve.http.gate import Gate, Route, host_is_loopback

pytestmark = pytest.mark.req("R-512")

POST = (
    b"POST /hook/PreToolUse?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8\r\n"
    b"Authorization: Bearer tok\r\nContent-Length: 2\r\n\r\n{}"
)


def events(codec: Codec) -> list[object]:
    out: list[object] = []
    while (event := codec.next()) is not NEED_DATA:
        out.append(event)
        if isinstance(event, Request | Refusal) or event is CLOSED:
            break
    return out


def test_a_request_in_one_read_gives_its_head_then_the_whole_request() -> None:
    codec = Codec(max_body_bytes=100)
    assert codec.phase is Phase.IDLE
    codec.feed(POST)
    head, request = events(codec)
    assert isinstance(head, Head) and isinstance(request, Request)
    assert (head.method, head.target) == (b"POST", b"/hook/PreToolUse?x=1")
    assert head.header(b"authorization") == b"Bearer tok"
    assert request.body == b"{}"
    assert codec.phase.value == "answer"


@pytest.mark.parametrize("cut", [1, 5, 30, len(POST) - 1])
def test_a_request_split_across_reads(cut: int) -> None:
    codec = Codec(max_body_bytes=100)
    codec.feed(POST[:cut])
    first = events(codec)
    assert codec.phase in (Phase.HEAD, Phase.BODY)
    codec.feed(POST[cut:])
    got = first + events(codec)
    assert isinstance(got[-1], Request) and got[-1].body == b"{}"


def test_the_answer_is_one_bytes_object_and_keep_alive_continues() -> None:
    codec = Codec(max_body_bytes=100)
    codec.feed(POST + POST)
    assert isinstance(events(codec)[-1], Request)
    data = codec.answer(200, b'{"a":1}')
    assert isinstance(data, bytes)
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 OK\r\n")
    assert b"content-length: 7" in head and b"connection" not in head
    assert body == b'{"a":1}'
    assert codec.next_cycle() is True
    assert isinstance(events(codec)[-1], Request)  # the pipelined second request


def test_a_client_asking_to_close_is_answered_then_closed() -> None:
    codec = Codec(max_body_bytes=100)
    codec.feed(POST.replace(b"Host:", b"Connection: close\r\nHost:"))
    assert isinstance(events(codec)[-1], Request)
    assert b"connection: close" in codec.answer(200, b"{}").lower()
    assert codec.next_cycle() is False


def test_eof_between_requests_is_closed() -> None:
    codec = Codec(max_body_bytes=100)
    codec.feed(b"")
    assert codec.next() is CLOSED


@pytest.mark.req("R-522")
def test_bodies_over_the_cap_are_413_by_length_or_as_chunks_arrive() -> None:
    codec = Codec(max_body_bytes=10)
    codec.feed(POST.replace(b"Content-Length: 2", b"Content-Length: 11"))
    refusal = events(codec)[-1]
    assert isinstance(refusal, Refusal) and refusal.status == 413
    assert b"connection: close" in codec.answer(413, b"{}")
    chunked = Codec(max_body_bytes=10)
    chunked.feed(
        POST.replace(b"Content-Length: 2\r\n\r\n{}", b"Transfer-Encoding: chunked\r\n\r\n")
    )
    assert isinstance(events(chunked)[-1], Head)
    chunked.feed(b"6\r\nabcdef\r\n")
    assert events(chunked) == []
    chunked.feed(b"6\r\nabcdef\r\n")
    refusal = events(chunked)[-1]
    assert isinstance(refusal, Refusal) and refusal.status == 413


def test_malformed_and_oversized_heads_are_refused() -> None:
    codec = Codec(max_body_bytes=10)
    codec.feed(b"NOT HTTP AT ALL\r\n\r\n")
    refusal = codec.next()
    assert isinstance(refusal, Refusal) and refusal.status == 400
    assert codec.answer(400, b"{}").startswith(b"HTTP/1.1 400 Bad Request")
    big = Codec(max_body_bytes=10, max_head_bytes=1024)
    big.feed(b"POST /hook/X HTTP/1.1\r\nHost: a\r\nX-Pad: " + b"a" * 2048)
    refusal = big.next()
    assert isinstance(refusal, Refusal) and refusal.status == 431


def test_the_codec_imports_without_trio_or_structlog() -> None:
    code = (
        "import sys, hookd.serve.http.codec, hookd.serve.http.gate;"
        "print(sorted(m for m in ('trio', 'structlog') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def head(
    *headers: tuple[bytes, bytes], method: bytes = b"POST", target: bytes = b"/hook/Stop"
) -> Head:
    return Head(method, target, headers)


HOST = (b"host", b"127.0.0.1:1")
AUTH = (b"authorization", b"Bearer tok")


@pytest.mark.req("R-520", "R-521", "R-526")
def test_the_gate_checks_origin_host_token_then_route() -> None:
    gate = Gate("tok")
    assert gate.check(head(HOST, AUTH)) == Route("hook", "Stop")
    assert gate.check(head(HOST, AUTH, method=b"GET", target=b"/status")) == Route("status")
    cases = [
        (head(HOST, AUTH, (b"origin", b"null")), 403),
        (head((b"host", b"evil.test"), AUTH), 403),
        (head(AUTH), 403),
        (head(HOST, HOST, AUTH), 403),
        (head(HOST), 401),
        (head(HOST, (b"authorization", b"Bearer tok2")), 401),
        (head(HOST, AUTH, AUTH), 401),
        (head(HOST, AUTH, target=b"/hook/../etc/passwd"), 404),
        (head(HOST, AUTH, target=b"/hook/%2e%2e"), 404),
        (head(HOST, AUTH, target=b"/"), 404),
        (head(HOST, AUTH, method=b"PUT"), 405),
        (head(HOST, AUTH, target=b"/status"), 405),
    ]
    for request, status in cases:
        refusal = gate.check(request)
        assert isinstance(refusal, Refusal) and refusal.status == status, request


@pytest.mark.req("R-521")
@pytest.mark.parametrize(
    ("host", "ok"),
    [
        ("localhost", True),
        ("LOCALHOST:80", True),
        ("127.0.0.1", True),
        ("127.9.9.9:5", True),
        ("[::1]:7", True),
        ("[::ffff:127.0.0.1]", True),
        ("evil.test", False),
        ("localhost.evil.test", False),
        ("192.168.1.1", False),
        ("[fd00::2]", False),
        ("", False),
        ("127.0.0.1:80:80", False),
    ],
)
def test_loopback_hosts(host: str, ok: bool) -> None:
    assert host_is_loopback(host) is ok


def nested(depth: int, inner: bytes = b"1") -> bytes:
    """``depth`` levels of objects and arrays in turn (the outermost, an object, is level 1)."""
    opens = [b'{"a":', b"["] * depth
    closes = [b"}", b"]"] * depth
    return b"".join(opens[:depth]) + inner + b"".join(reversed(closes[:depth]))


@pytest.mark.req("R-514")
@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b'{"a": "\xff"}', "the body is not valid UTF-8"),
        (b'{"\xc3\x28": 1}', "the body is not valid UTF-8"),
        (b"\xff", "the body is not JSON: JSON is malformed: invalid character (byte 0)"),
        (b"", "the body is not JSON: Input data was truncated"),
        (b"[1]", "the body must be a JSON object (the hook input)"),
        (nested(MAX_BODY_DEPTH + 1), f"the body is nested deeper than {MAX_BODY_DEPTH} levels"),
        (nested(1000), f"the body is nested deeper than {MAX_BODY_DEPTH} levels"),
        (nested(100_000), f"the body is nested deeper than {MAX_BODY_DEPTH} levels"),
        (
            b'{"a":' * 5000 + b"1" + b"}" * 5000,
            f"the body is nested deeper than {MAX_BODY_DEPTH} levels",
        ),
    ],
)
def test_a_body_that_is_not_a_json_object_is_one_line_not_an_exception(
    body: bytes, message: str
) -> None:
    assert decode_body(body) == message


@pytest.mark.req("R-514")
def test_bodies_up_to_the_depth_limit_decode() -> None:
    assert decode_body(b'{"a": "caf\xc3\xa9", "b": [1, {"c": null}]}') == {
        "a": "café",
        "b": [1, {"c": None}],
    }
    deepest = decode_body(nested(MAX_BODY_DEPTH))
    assert isinstance(deepest, dict)
    many = b'{"a": [' + b",".join([b"[{}]"] * 10_000) + b"]}"  # wide, not deep
    assert decode_body(many) == {"a": [[{}]] * 10_000}
    brackets = b'{"a": "' + b"[{" * 1000 + b'"}'  # brackets inside a string nest nothing
    assert decode_body(brackets) == {"a": "[{" * 1000}
