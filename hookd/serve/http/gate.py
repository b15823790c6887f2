"""Who may ask what: the checks on a request head, before its body is read (no I/O).

In order: no ``Origin`` header (a browser sent it), a loopback ``Host`` (DNS
rebinding), the bearer token (compared in constant time), then the route and
the method. The first check that fails decides the answer.
"""

from __future__ import annotations

import hmac
import ipaddress
import re
from dataclasses import dataclass
from typing import Final

from hookd.serve.http.codec import Head, Refusal

__all__ = ["Gate", "Route", "host_is_loopback"]

_HOOK_PATH: Final = re.compile(rb"/hook/([A-Za-z][A-Za-z0-9_]{0,63})")
_RECORD_PATHS: Final = {b"/record/start": "start", b"/record/stop": "stop"}
_HOST_PORT: Final = re.compile(r"(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<name>[^:\[\]]+))(?::\d{1,5})?")
_LOOPBACK_NAMES: Final = frozenset({"localhost", "localhost."})
_HOST_CACHE: Final = 256


@dataclass(frozen=True, slots=True)
class Route:
    """Where an accepted request goes: ``hook`` (with its URL event), ``status``, or
    ``record`` (with ``start`` or ``stop`` as its event)."""

    kind: str
    event: str | None = None


STATUS: Final = Route("status")
_POST_ONLY: Final = Refusal(405, "/record/start and /record/stop take POST")


def host_is_loopback(host: str) -> bool:
    """Whether a ``Host`` header value (``name[:port]``, ``[v6][:port]``) names this machine."""
    found = _HOST_PORT.fullmatch(host)
    if found is None:
        return False
    name = found["v6"] or found["name"]
    if name.lower() in _LOOPBACK_NAMES:
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback


def _host_address(host: str) -> str | None:
    found = _HOST_PORT.fullmatch(host)
    return None if found is None else (found["v6"] or found["name"])


class Gate:
    """Checks request heads against one token and the addresses this server answers on."""

    def __init__(self, token: str, *, extra_hosts: tuple[str, ...] = ()) -> None:
        if not token:
            raise ValueError("the token is empty")
        self._expected = b"Bearer " + token.encode()
        self._extra_hosts = frozenset(h.lower() for h in extra_hosts)
        self._hosts: dict[bytes, bool] = {}  # Host header value -> allowed

    def check(self, head: Head) -> Route | Refusal:
        """The route of an acceptable request, or why it is refused."""
        if head.header(b"origin") is not None:
            return Refusal(403, "requests from a browser (with an Origin header) are refused")
        if not self._host_ok(head):
            return Refusal(403, "the Host header must name a loopback address")
        if not self._token_ok(head):
            return Refusal(401, "missing or wrong bearer token")
        return self._route(head)

    def _host_ok(self, head: Head) -> bool:
        if head.count(b"host") != 1:
            return False
        raw = head.header(b"host") or b""
        known = self._hosts.get(raw)
        if known is None:
            if len(self._hosts) >= _HOST_CACHE:
                self._hosts.clear()
            known = self._hosts[raw] = self._host_allowed(raw.decode("latin-1").strip())
        return known

    def _host_allowed(self, value: str) -> bool:
        if host_is_loopback(value):
            return True
        address = _host_address(value)
        return address is not None and address.lower() in self._extra_hosts

    def _token_ok(self, head: Head) -> bool:
        if head.count(b"authorization") != 1:
            return False
        given = head.header(b"authorization") or b""
        return hmac.compare_digest(given.strip(), self._expected)

    @staticmethod
    def _route(head: Head) -> Route | Refusal:
        path = head.target.split(b"?", 1)[0]
        if path == b"/status":
            if head.method != b"GET":
                return Refusal(405, "/status takes GET")
            return STATUS
        action = _RECORD_PATHS.get(path)
        if action is not None:
            return Route("record", action) if head.method == b"POST" else _POST_ONLY
        found = _HOOK_PATH.fullmatch(path)
        if found is None:
            return Refusal(404, "no such path: hooks are posted to /hook/<EventName>")
        if head.method != b"POST":
            return Refusal(405, "hooks are posted: use POST")
        return Route("hook", found[1].decode())
