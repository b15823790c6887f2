"""What the server keeps about requests in flight: flights, inline runs, batches, the book."""

from __future__ import annotations

from typing import NamedTuple

import msgspec
import trio

from hookd import wire
from hookd.engine.kernel import Waiting

__all__ = ["Batch", "Flight", "InFlight", "InlineRun", "Key", "Yielded"]

Key = tuple[wire.Framing, wire.RequestId]


class Flight:
    """One request in flight: its cancel scope, and whether the peer withdrew it."""

    __slots__ = ("arrived", "batch", "scope", "size", "withdrawn")

    def __init__(self, batch: Batch | None, scope: trio.CancelScope | None = None) -> None:
        self.scope = scope if scope is not None else trio.CancelScope()
        self.size = 0
        self.arrived: float | None = None  # time.monotonic() when its line was read
        self.withdrawn = False
        self.batch = batch


class Yielded(NamedTuple):
    """A call whose trio hook, run inline, yielded to trio before it was done."""

    call: wire.Call
    key: Key
    pending: Waiting
    started: float
    size: int


class InlineRun:
    """A reader task's state once it stays with a hook that yielded to trio."""

    __slots__ = ("call", "flight", "key", "pending", "scope", "started")

    def __init__(self) -> None:
        self.scope = trio.CancelScope()
        self.flight = Flight(None, self.scope)
        self.call: wire.Call | None = None
        self.key: Key = ("control", "")
        self.pending: Waiting | None = None
        self.started = 0.0

    def adopt(self, yielded: Yielded) -> None:
        """Stay with ``yielded``'s hook: its request is this runner's flight now."""
        self.call, self.key, self.pending = yielded.call, yielded.key, yielded.pending
        self.started = yielded.started
        self.flight.size = yielded.size


class Batch:
    """A JSON-RPC batch: its answers go out together as one array."""

    __slots__ = ("answers", "pending")

    def __init__(self, pending: int) -> None:
        self.pending = pending
        self.answers: list[msgspec.Struct] = []


class InFlight:
    """The requests in flight by key, and the limits on their number and bytes."""

    __slots__ = ("_bytes", "_flights", "max_bytes", "max_count")

    def __init__(self, max_count: int, max_bytes: int) -> None:
        self._flights: dict[Key, Flight] = {}
        self._bytes = 0
        self.max_count = max_count
        self.max_bytes = max_bytes

    def __len__(self) -> int:
        return len(self._flights)

    def refusal(self, key: Key, size: int) -> str | None:
        """Why a request of ``size`` bytes under ``key`` is not taken: ``""`` when ``key`` is
        in flight already (a duplicate), else the limit it is over; None when it is taken."""
        flights = self._flights
        if key in flights:
            return ""
        if len(flights) >= self.max_count:
            return f"too many requests in flight (limit {self.max_count})"
        if self._bytes + size > self.max_bytes:
            return f"too many bytes of requests in flight (limit {self.max_bytes})"
        return None

    def add(self, key: Key, flight: Flight) -> None:
        self._flights[key] = flight
        self._bytes += flight.size

    def drop(self, key: Key) -> Flight | None:
        flight = self._flights.pop(key, None)
        if flight is not None:
            self._bytes -= flight.size
        return flight

    def withdraw_all(self) -> None:
        """Cancel every request in flight; none of them will be answered."""
        for flight in self._flights.values():
            flight.withdrawn = True
            flight.scope.cancel()
        self._flights.clear()
        self._bytes = 0
