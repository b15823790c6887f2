"""Who may ask what: the checks on a request head, before its body is read (no I/O).

In order: no ``Origin`` header (a browser sent it), a loopback ``Host`` (DNS
rebinding), the bearer token (compared in constant time), then the route and
the method. The first check that fails decides the answer.

An accepted request that carries ``X-Hookd-Challenge`` (a random nonce) gets
``X-Hookd-Proof`` on its answer: HMAC-SHA256 under the proof key of
``--proof-key-file`` of the nonce, this process's pid and its port. The key
never travels, so a client that checks the proof knows it reached the daemon
it started, not another program holding the port.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import os
import re
from dataclasses import dataclass
from typing import Final

from hookd.serve.http.codec import Head, Refusal

__all__ = ["AUTH_FAILURE_DELAY_S", "Gate", "Route", "host_is_loopback"]

#: How long a request with a missing or wrong token waits for its 401 (on its own
#: connection, which then closes): guessing costs time, valid callers pay nothing.
AUTH_FAILURE_DELAY_S: Final = 0.2

_HOOK_PATH: Final = re.compile(rb"/hook/([A-Za-z][A-Za-z0-9_]{0,63})")
_RECORD_PATHS: Final = {b"/record/start": "start", b"/record/stop": "stop"}
#: An agent event is a name, or dotted names (OpenCode's `tool.execute.before`).
_AGENT_PATH: Final = re.compile(
    rb"/agent/([a-z]{1,32}/[A-Za-z][A-Za-z0-9_]{0,63}(?:\.[A-Za-z][A-Za-z0-9_]{0,63}){0,3})"
)
_HOST_PORT: Final = re.compile(r"(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<name>[^:\[\]]+))(?::\d{1,5})?")
_LOOPBACK_NAMES: Final = frozenset({"localhost", "localhost."})
_HOST_CACHE: Final = 256
_NONCE: Final = re.compile(rb"[0-9a-f]{16,128}")
Extra = tuple[tuple[bytes, bytes], ...]


@dataclass(frozen=True, slots=True)
class Route:
    """Where an accepted request goes: ``hook`` (with its URL event), ``agent`` (with
    ``agent/AgentEvent``), ``status``, or ``record`` (with ``start`` or ``stop`` as its
    event); ``extra`` holds headers for its answer (the proof)."""

    kind: str
    event: str | None = None
    extra: Extra = ()


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

    def __init__(
        self, token: str, *, extra_hosts: tuple[str, ...] = (), proof_key: bytes | None = None
    ) -> None:
        if not token:
            raise ValueError("the token is empty")
        self._expected = b"Bearer " + token.encode()
        self._extra_hosts = frozenset(h.lower() for h in extra_hosts)
        self._hosts: dict[bytes, bool] = {}  # Host header value -> allowed
        self._proof_key = proof_key
        self._port = 0

    def listening(self, port: int) -> None:
        """The port this server listens on: its proofs name it."""
        self._port = port

    def proof(self, nonce: bytes) -> bytes:
        """HMAC-SHA256 of ``nonce``, the pid and the port under the proof key, in hex."""
        assert self._proof_key is not None
        message = b"hookd-proof\n%s\n%d\n%d" % (nonce, os.getpid(), self._port)
        return hmac.new(self._proof_key, message, hashlib.sha256).hexdigest().encode()

    def check(self, head: Head) -> Route | Refusal:
        """The route of an acceptable request, or why it is refused."""
        if head.header(b"origin") is not None:
            return Refusal(403, "requests from a browser (with an Origin header) are refused")
        if not self._host_ok(head):
            return Refusal(403, "the Host header must name a loopback address")
        if not self._token_ok(head):
            return Refusal(401, "missing or wrong bearer token")
        route = self._route(head)
        if self._proof_key is None or isinstance(route, Refusal):
            return route
        nonce = head.header(b"x-hookd-challenge")
        if nonce is None or _NONCE.fullmatch(nonce.strip()) is None:
            return route
        proof = ((b"x-hookd-proof", self.proof(nonce.strip())),)
        return Route(route.kind, route.event, proof)

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
        agent = _AGENT_PATH.fullmatch(path) if found is None else None
        if found is None and agent is None:
            return Refusal(404, "no such path: hooks are posted to /hook/<EventName>")
        if head.method != b"POST":
            return Refusal(405, "hooks are posted: use POST")
        if agent is not None:
            return Route("agent", agent[1].decode())
        assert found is not None
        return Route("hook", found[1].decode())
