"""Heads parsed once: a codec with the head cache reads every stream as h11 alone reads it."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookd.serve.http.codec import CLOSED, NEED_DATA, Codec, Refusal, Request
from hookd.serve.http.heads import HeadCache, split_head

pytestmark = pytest.mark.req("R-512")

MAX_BODY = 40
HEAD = (
    b"POST /hook/PreToolUse HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    b"Authorization: Bearer tok\r\nContent-Length: %d\r\n\r\n"
)


def read(chunks: list[bytes], heads: HeadCache | None) -> list[object]:
    """Every event of one connection fed ``chunks``, each request answered, until it closes."""
    codec = Codec(max_body_bytes=MAX_BODY, heads=heads)
    out: list[object] = []
    for chunk in chunks:
        codec.feed(chunk)
        while (event := codec.next()) is not NEED_DATA:
            out.append(event)
            if event is CLOSED:
                return out
            if isinstance(event, Request | Refusal):
                close = isinstance(event, Refusal)
                out.append(codec.answer(200, b"{}", close=close))
                if not codec.next_cycle():
                    return [*out, "closed"]
    return out


def test_a_known_head_is_served_from_the_cache_with_its_own_length_and_body() -> None:
    heads = HeadCache()
    first = read([HEAD % 2 + b"{}"], heads)
    assert heads.hits == 0
    second = read([HEAD % 7 + b'{"a":1}' + HEAD % 2 + b"{}"], heads)
    assert heads.hits == 2
    assert second == read([HEAD % 7 + b'{"a":1}' + HEAD % 2 + b"{}"], None)
    request = second[1]
    assert isinstance(request, Request) and request.body == b'{"a":1}'
    assert request.head.header(b"content-length") == b"7"
    assert first[1] == second[4]


def test_a_head_with_two_lengths_or_none_has_no_key() -> None:
    assert split_head(b"POST / HTTP/1.1\r\nHost: a\r\n\r\n") is None
    two = b"POST / HTTP/1.1\r\nContent-Length: 1\r\ncontent-length: 1\r\n\r\nx"
    assert split_head(two) is None
    found = split_head(HEAD % 12 + b"body")
    assert found is not None and found[1:] == (b"12", len(HEAD % 12))


_NAMES = st.sampled_from([b"Host", b"host", b"HOST", b"Authorization", b"X-Note", b"Expect"])
_VALUES = st.sampled_from([b"127.0.0.1", b"Bearer tok", b"#", b"", b" a ", b"100-continue"])
_LENGTHS = st.sampled_from(
    [
        b"%d",
        b"%d",
        b"%d",
        b"0%d",
        b" %d ",
        b"%d,%d",
        b"%d\r\nContent-Length: %d",
        b"x",
        b"%d\r\nTransfer-Encoding: chunked",
    ]
)


@st.composite
def _request(draw: st.DrawFn) -> bytes:
    body = draw(st.binary(max_size=MAX_BODY + 5))
    line = draw(
        st.sampled_from([b"POST /hook/Stop HTTP/1.1", b"POST /x HTTP/1.0", b"GET / HTTP/1.1"])
    )
    headers = [draw(_NAMES) + b": " + draw(_VALUES) for _ in range(draw(st.integers(0, 3)))]
    form = draw(_LENGTHS)
    value = form % ((len(body),) * form.count(b"%d"))
    headers.insert(draw(st.integers(0, len(headers))), b"Content-Length: " + value)
    if draw(st.booleans()):
        headers.append(draw(st.sampled_from([b"Connection: close", b"Connection: keep-alive"])))
    return line + b"\r\n" + b"".join(h + b"\r\n" for h in headers) + b"\r\n" + body


@settings(max_examples=300, deadline=None)
@given(
    requests=st.lists(_request(), min_size=1, max_size=4),
    cuts=st.lists(st.integers(0, 400), max_size=4),
    eof=st.booleans(),
)
def test_with_the_cache_every_stream_reads_as_h11_alone_reads_it(
    requests: list[bytes], cuts: list[int], eof: bool
) -> None:
    """The same stream twice through a shared cache (the second pass finds its heads) gives
    the same events, refusals and answers as a codec without one, however it is split."""
    stream = b"".join(requests)
    points = sorted({0, len(stream), *(c for c in cuts if c < len(stream))})
    chunks = [stream[a:b] for a, b in itertools.pairwise(points)]
    if eof:
        chunks.append(b"")
    plain = read(chunks, None)
    heads = HeadCache()
    for whole in (chunks, [stream], chunks):
        assert read(whole, heads) == read(whole, None)
    assert read(chunks, heads) == plain


@pytest.mark.parametrize("cut", [None, 3, 60])
def test_a_known_head_with_too_long_or_unfinished_body_goes_to_h11(cut: int | None) -> None:
    """Over the limit: refused 413 as without the cache; a body still arriving: read by h11."""
    heads = HeadCache()
    read([HEAD % 2 + b"{}"], heads)
    for request in (HEAD % (MAX_BODY + 1) + b"x" * (MAX_BODY + 1), HEAD % 30 + b"y" * 30):
        chunks = [request] if cut is None else [request[:cut], request[cut:]]
        assert read(chunks, heads) == read(chunks, None)
    assert read([HEAD % (MAX_BODY + 1)], heads)[0] == Refusal(
        413, f"request body over the limit of {MAX_BODY} bytes"
    )
