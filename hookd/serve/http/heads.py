"""Request heads h11 has parsed, kept to answer the same head again without parsing it.

A client sends the same head for every hook POST but for the value of
``Content-Length``. A head is kept under its bytes before and after those digits,
once h11 has parsed exactly those bytes as a whole head with one
``Content-Length`` and no ``Transfer-Encoding``: the same bytes with other
digits parse to the same request line and headers with that one value
changed, and frame a body of that many bytes. Anything else (another header, a
changed byte, a head split across reads) is not found and goes to h11.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

__all__ = ["HeadCache", "Key", "Known", "split_head"]

#: A Content-Length header line (h11 takes up to 20 digits; these keys take 18).
_LENGTH: Final = re.compile(rb"\r\ncontent-length:[ \t]*([0-9]{1,18})[ \t]*(?=\r\n)", re.I)
#: Heads longer than this are always parsed by h11 (far under its own limit).
MAX_KEPT_HEAD: Final = 8 * 1024
MAX_HEADS: Final = 64


@dataclass(frozen=True, slots=True)
class Known:
    """A parsed head: request line, headers (names lower-cased), where its Content-Length is."""

    method: bytes
    target: bytes
    headers: tuple[tuple[bytes, bytes], ...]
    length_at: int  # index of the content-length header in headers
    keep_alive: bool


Key = tuple[bytes, bytes]


def split_head(data: bytes) -> tuple[Key, bytes, int] | None:
    """``(key, Content-Length digits, head size)`` of a whole head starting ``data``, or None.

    The key is the bytes before and after the digits, apart: equal keys mean
    equal heads but for those digits.
    """
    end = data.find(b"\r\n\r\n", 0, MAX_KEPT_HEAD)
    if end < 0:
        return None
    found = list(_LENGTH.finditer(data, 0, end + 2))
    if len(found) != 1:
        return None
    start, stop = found[0].span(1)
    return (data[:start], data[stop : end + 4]), data[start:stop], end + 4


class HeadCache:
    """Heads by their key (:func:`split_head`); at most :data:`MAX_HEADS`, shared by connections."""

    def __init__(self) -> None:
        self._known: dict[Key, Known] = {}
        self.hits = 0

    def get(self, key: Key) -> Known | None:
        known = self._known.get(key)
        if known is not None:
            self.hits += 1
        return known

    def keep(
        self,
        key: Key,
        line: tuple[bytes, bytes],
        headers: tuple[tuple[bytes, bytes], ...],
        keep_alive: bool,
    ) -> None:
        """Keep h11's parse (request line, headers) of the head ``key`` stands for, if it may be."""
        names = [name for name, _ in headers]
        if names.count(b"content-length") != 1 or b"transfer-encoding" in names:
            return
        if len(self._known) >= MAX_HEADS:
            self._known.clear()
        at = names.index(b"content-length")
        self._known[key] = Known(line[0], line[1], headers, at, keep_alive)
