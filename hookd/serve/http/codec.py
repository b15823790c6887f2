"""One server-side HTTP/1.1 connection, sans I/O: bytes in, requests out, answers as bytes.

h11 parses the requests, with hookd's limits: a head larger than
``max_head_bytes`` or a body larger than ``max_body_bytes`` becomes a
:class:`Refusal` (431 / 413) instead of being buffered. Answers are built here
(their headers are hookd's own, so this is a few byte joins, a fraction of what
h11's writer costs), each as one ``bytes`` object, so the transport writes it
with one ``send_all`` (no Nagle stall between headers and body); the next
request of a kept-alive connection is parsed by a fresh h11 state machine fed
the bytes already received. :func:`decode_body` turns a hook POST's body into the
hook input, or into a one-line reason it is not one (a 400). Nothing here reads
or writes a socket.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Final

import h11
import msgspec

__all__ = [
    "CLOSED",
    "MAX_BODY_DEPTH",
    "NEED_DATA",
    "Codec",
    "Head",
    "Phase",
    "Refusal",
    "Request",
    "decode_body",
    "reason_phrase",
]

DEFAULT_MAX_HEAD_BYTES: Final = 64 * 1024
#: Deepest nesting of objects and arrays a hook input may have (the hook input itself is 1).
MAX_BODY_DEPTH: Final = 200
_FIXED: Final = b"server: hookd\r\ncache-control: no-store\r\n"

_REASONS: Final = {
    200: b"OK",
    400: b"Bad Request",
    401: b"Unauthorized",
    403: b"Forbidden",
    404: b"Not Found",
    405: b"Method Not Allowed",
    408: b"Request Timeout",
    413: b"Content Too Large",
    431: b"Request Header Fields Too Large",
    500: b"Internal Server Error",
    503: b"Service Unavailable",
}


def reason_phrase(status: int) -> bytes:
    """The reason phrase hookd sends with ``status``."""
    return _REASONS.get(status, b"")


_body_decoder: Final = msgspec.json.Decoder()


def decode_body(body: bytes) -> dict[str, Any] | str:
    """The JSON object a hook POST carries, or a one-line message saying why it is not one.

    Not JSON, not UTF-8, nested deeper than :data:`MAX_BODY_DEPTH` or not an
    object: each is a message, never an exception.
    """
    try:
        value = _body_decoder.decode(body)
    except UnicodeDecodeError:
        return "the body is not valid UTF-8"
    except RecursionError:
        return f"the body is nested deeper than {MAX_BODY_DEPTH} levels"
    except msgspec.DecodeError as exc:
        return f"the body is not JSON: {exc}"
    if not isinstance(value, dict):
        return "the body must be a JSON object (the hook input)"
    if body.count(b"{") + body.count(b"[") > MAX_BODY_DEPTH and _deeper(value, MAX_BODY_DEPTH):
        return f"the body is nested deeper than {MAX_BODY_DEPTH} levels"
    return value


def _deeper(value: dict[str, Any], limit: int) -> bool:
    """Whether objects and arrays nest more than ``limit`` levels in ``value`` (no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        for child in item.values() if isinstance(item, dict) else item:
            if isinstance(child, dict | list):
                if depth == limit:
                    return True
                stack.append((child, depth + 1))
    return False


class Phase(enum.Enum):
    """Where the connection is in reading a request (the transport picks its timeout by it)."""

    IDLE = "idle"  # between requests, no byte of the next one yet
    HEAD = "head"  # part of a request head received
    BODY = "body"  # the head is in, the body is arriving
    ANSWER = "answer"  # a whole request is in, its answer is due


@dataclass(frozen=True, slots=True)
class Head:
    """A request line and headers (names lower-cased, values as sent)."""

    method: bytes
    target: bytes
    headers: tuple[tuple[bytes, bytes], ...]

    def header(self, name: bytes) -> bytes | None:
        """The value of the first header called ``name`` (lower case), or None."""
        for key, value in self.headers:
            if key == name:
                return value
        return None

    def count(self, name: bytes) -> int:
        """How many headers called ``name`` (lower case) the request has."""
        return sum(1 for key, _ in self.headers if key == name)


@dataclass(frozen=True, slots=True)
class Request:
    """A whole request: its head and its body."""

    head: Head
    body: bytes


@dataclass(frozen=True, slots=True)
class Refusal:
    """The request cannot be read: answer ``status`` with ``message``, then close."""

    status: int
    message: str


class _Need:
    def __repr__(self) -> str:
        return "NEED_DATA"


class _Closed:
    def __repr__(self) -> str:
        return "CLOSED"


#: :meth:`Codec.next` needs more bytes.
NEED_DATA: Final = _Need()
#: The peer closed the connection cleanly between requests.
CLOSED: Final = _Closed()

Event = Head | Request | Refusal | _Need | _Closed


class Codec:
    """Parses requests from bytes and turns answers into bytes for one connection.

    Feed what the socket gives with :meth:`feed` (``b""`` at EOF), then call
    :meth:`next` until it says :data:`NEED_DATA`. It yields the :class:`Head`
    first (so a caller can refuse a request before its body is read), then the
    :class:`Request` once the body is in.
    """

    def __init__(
        self,
        *,
        max_body_bytes: int,
        max_head_bytes: int = DEFAULT_MAX_HEAD_BYTES,
    ) -> None:
        self._max_head = max_head_bytes
        self._conn = h11.Connection(h11.SERVER, max_incomplete_event_size=max_head_bytes)
        self._max_body = max_body_bytes
        self._head: Head | None = None
        self._body: list[bytes] = []
        self._size = 0
        self._answer_due = False
        self._wants_keep_alive = False  # the request's head allows keep-alive
        self._keep_alive = False  # ... and it was read in full
        self._close_after = True
        self._empty = True  # nothing fed since the last request: next() needs data

    @property
    def phase(self) -> Phase:
        if self._answer_due:
            return Phase.ANSWER
        if self._head is not None:
            return Phase.BODY
        if self._empty:
            return Phase.IDLE
        return Phase.HEAD if self._conn.trailing_data[0] else Phase.IDLE

    def feed(self, data: bytes) -> None:
        """Bytes read from the socket; ``b""`` when the peer closed its side."""
        self._empty = False
        self._conn.receive_data(data)

    def next(self) -> Event:
        """The next thing the bytes fed so far make up."""
        if self._empty:
            return NEED_DATA
        try:
            return self._next()
        except h11.RemoteProtocolError as exc:
            self._answer_due = True
            status = exc.error_status_hint
            return Refusal(status, f"malformed request: {exc}")

    def _next(self) -> Event:
        while True:
            event = self._conn.next_event()
            match event:
                case h11.Request():
                    return self._on_head(event)
                case h11.Data():
                    self._size += len(event.data)
                    if self._size > self._max_body:
                        return self._too_large()
                    self._body.append(bytes(event.data))
                case h11.EndOfMessage():
                    assert self._head is not None
                    request = Request(self._head, b"".join(self._body))
                    self._head, self._body, self._answer_due = None, [], True
                    self._keep_alive = self._wants_keep_alive
                    return request
                case h11.ConnectionClosed():
                    return CLOSED
                case _:  # NEED_DATA, or PAUSED while an answer is due
                    return NEED_DATA

    def _on_head(self, event: h11.Request) -> Event:
        headers = tuple(event.headers)
        self._head = Head(bytes(event.method), bytes(event.target), headers)
        self._size = 0
        tokens = b",".join(v for k, v in headers if k == b"connection").lower()
        if event.http_version == b"1.1":
            self._wants_keep_alive = b"close" not in tokens
        else:
            self._wants_keep_alive = b"keep-alive" in tokens
        length = self._head.header(b"content-length")
        if length is not None and int(length) > self._max_body:
            return self._too_large()
        return self._head

    def _too_large(self) -> Refusal:
        self._answer_due = True
        return Refusal(413, f"request body over the limit of {self._max_body} bytes")

    def answer(
        self,
        status: int,
        body: bytes,
        *,
        close: bool = False,
        extra: tuple[tuple[bytes, bytes], ...] = (),
    ) -> bytes:
        """The whole answer (head and JSON ``body``) as one ``bytes`` object.

        ``close`` ends the connection after it (as does a request that asked to
        close, or one whose body was not read to the end).
        """
        self._close_after = close or not self._keep_alive
        parts = [
            b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\n"
            % (status, reason_phrase(status), len(body)),
            _FIXED,
        ]
        parts += [name + b": " + value + b"\r\n" for name, value in extra]
        if self._close_after:
            parts.append(b"connection: close\r\n")
        parts += (b"\r\n", body)
        return b"".join(parts)

    def next_cycle(self) -> bool:
        """After an answer: True when the connection stays open for another request."""
        self._answer_due = False
        self._head, self._body = None, []
        if self._close_after:
            return False
        rest, closed = self._conn.trailing_data
        self._conn = h11.Connection(h11.SERVER, max_incomplete_event_size=self._max_head)
        self._empty = True
        if rest:
            self.feed(bytes(rest))
        if closed:
            self.feed(b"")
        self._keep_alive, self._close_after = False, True
        return True
