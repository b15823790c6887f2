"""A minimal blocking HTTP/1.1 client for talking to a local daemon.

The interpreter's own socket module only (``_socket``: no ``http.client``, no
``socket`` wrapper with its enums and selectors, no trio): ``hookd up`` and
``hookd call`` start in a few tens of milliseconds. One request per
connection, ``Connection: close``, the whole request in one write. One deadline
covers the whole exchange, and an answer is used only once it is whole.
"""

from __future__ import annotations

import _socket
from time import monotonic

from hookd.errors import HookdError

__all__ = ["CALL_DEADLINE_S", "Incomplete", "Reply", "Unreachable", "get_json", "request"]

MAX_REPLY_BYTES = 64 * 1024 * 1024
#: How long ``hookd call`` gives the daemon's whole answer without ``--deadline`` (the
#: settings ``hookd install`` writes in local and user scope give the event's budget).
CALL_DEADLINE_S = 600.0


class Unreachable(HookdError):
    """Nothing answered at the address, or the answer was not HTTP."""


class Incomplete(Unreachable):
    """An answer was due and did not arrive whole: cut short (fewer bytes than its
    ``Content-Length``), or not complete within the deadline. Not to be asked again."""


class Reply:
    """A status, a body and the daemon's proof header (a plain class: ``dataclasses`` costs
    start-up time)."""

    __slots__ = ("body", "proof", "status")

    def __init__(self, status: int, body: bytes, proof: bytes = b"") -> None:
        self.status = status
        self.body = body
        self.proof = proof

    def json(self) -> object:
        import json  # not at the top: json imports re, which ``hookd up``'s fast path avoids

        return json.loads(self.body) if self.body else {}


def request(
    host: str,
    port: int,
    method: str,
    path: str,
    *,
    token: str | None,
    body: bytes = b"",
    timeout_s: float = 5.0,
    headers: tuple[tuple[str, str], ...] = (),
    challenge: str | None = None,
) -> Reply:
    """Send one request (with ``headers`` besides hookd's own) and read the whole answer.

    ``timeout_s`` bounds the whole exchange (connect, request, every byte of the answer), not
    each read: an answer that stalls or drips is given up at the same time as one that never
    starts. ``challenge`` asks the daemon's proof (:data:`~hookd.daemon.where.PROOF_HEADER`).
    Raises :class:`Incomplete` when an answer was due and did not arrive whole, and
    :class:`Unreachable` when nothing answered at all.
    """
    head = [
        f"{method} {path} HTTP/1.1",
        f"Host: {host}:{port}",
        "Connection: close",
        "Content-Type: application/json",
        f"Content-Length: {len(body)}",
    ]
    if token is not None:
        head.append(f"Authorization: Bearer {token}")
    head += [f"{name}: {value}" for name, value in headers]
    if challenge is not None:
        head.append(f"X-Hookd-Challenge: {challenge}")
    data = ("\r\n".join(head) + "\r\n\r\n").encode() + body
    where = f"{host}:{port}"
    end = monotonic() + timeout_s
    sock = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout_s)
        sock.connect((host, port))  # an IP literal: no name lookup, no idna codec
        sock.setsockopt(_socket.IPPROTO_TCP, _socket.TCP_NODELAY, 1)
        sock.settimeout(_left(end))
        sock.sendall(data)
        raw = _read_all(sock, end)
    except TimeoutError:
        raise Incomplete(f"{where}: no complete answer within {timeout_s:g}s") from None
    except OSError as exc:
        raise Unreachable(f"{where}: {exc.strerror or exc}") from None
    finally:
        sock.close()
    return _parse(raw, where)


def _left(end: float) -> float:
    """Seconds left before ``end``; :class:`TimeoutError` once none are."""
    left = end - monotonic()
    if left <= 0:
        raise TimeoutError
    return left


def _read_all(sock: _socket.socket, end: float) -> bytes:
    """The answer, to its last byte (``Content-Length``) or to the end of the stream."""
    chunks: list[bytes] = []
    size = 0
    while True:
        sock.settimeout(_left(end))
        try:
            chunk = sock.recv(65536)
        except ConnectionError:
            if not chunks:
                raise
            chunk = b""  # reset after it began: cut short, which _parse tells
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_REPLY_BYTES:
            raise OSError("answer too large")
        if _complete(b"".join(chunks)):
            break
    return b"".join(chunks)


def _complete(raw: bytes) -> bool:
    """True once the head and ``Content-Length`` bytes of body have arrived."""
    head, sep, body = raw.partition(b"\r\n\r\n")
    if not sep:
        return False
    length = _declared(head)
    return length is not None and len(body) >= length  # no length: read to EOF


def _declared(head: bytes) -> int | None:
    """The head's ``Content-Length``; None without one, or one that is not a number."""
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            value = value.strip() or b"0"
            return int(value) if value.isdigit() and len(value) < 16 else None
    return None


def _parse(raw: bytes, where: str) -> Reply:
    head, sep, body = raw.partition(b"\r\n\r\n")
    status_line = head.split(b"\r\n", 1)[0].split()
    if not raw:
        raise Unreachable(f"{where}: the connection closed without an answer")
    if not sep and raw.startswith(b"HTTP/"):
        raise Incomplete(f"{where}: the answer ended inside its head")
    if not sep or len(status_line) < 2 or not status_line[0].startswith(b"HTTP/"):
        raise Unreachable(f"{where}: the answer is not HTTP")
    try:
        status = int(status_line[1])
    except ValueError:
        raise Unreachable(f"{where}: the answer is not HTTP") from None
    length = _declared(head)
    if length is not None:
        if len(body) < length:
            raise Incomplete(f"{where}: the answer ended after {len(body)} of {length} bytes")
        body = body[:length]
    proof = b""
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"x-hookd-proof":
            proof = value.strip()
    return Reply(status, body, proof)


def get_json(
    host: str,
    port: int,
    path: str,
    token: str | None,
    *,
    timeout_s: float = 2.0,
    challenge: str | None = None,
) -> Reply:
    """``GET path`` with the token (and a challenge for the daemon's proof)."""
    return request(host, port, "GET", path, token=token, timeout_s=timeout_s, challenge=challenge)
