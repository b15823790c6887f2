"""What the server keeps about requests in flight: flights, runners, batches."""

from __future__ import annotations

import msgspec
import trio

from hookd import wire
from hookd.core.context import HookContext
from hookd.core.registry import Registration

__all__ = ["Batch", "Flight", "Key", "Runner"]

Key = tuple[wire.Framing, wire.RequestId]


class Flight:
    """One request in flight: its cancel scope, and whether the peer withdrew it."""

    __slots__ = ("batch", "scope", "size", "withdrawn")

    def __init__(self, batch: Batch | None, scope: trio.CancelScope | None = None) -> None:
        self.scope = scope if scope is not None else trio.CancelScope()
        self.size = 0
        self.withdrawn = False
        self.batch = batch


class Runner:
    """A reader task's state once it stays with a hook that yielded to trio."""

    __slots__ = ("call", "ctx", "flight", "key", "reg", "scope", "started")

    def __init__(self) -> None:
        self.scope = trio.CancelScope()
        self.flight = Flight(None, self.scope)
        self.call: wire.Call | None = None
        self.key: Key = ("control", "")
        self.reg: Registration | None = None
        self.ctx: HookContext | None = None
        self.started = 0.0

    def adopt(
        self, call: wire.Call, key: Key, reg: Registration, ctx: HookContext, started: float
    ) -> None:
        self.call, self.key, self.reg, self.ctx, self.started = call, key, reg, ctx, started


class Batch:
    """A JSON-RPC batch: its answers go out together as one array."""

    __slots__ = ("answers", "pending")

    def __init__(self, pending: int) -> None:
        self.pending = pending
        self.answers: list[msgspec.Struct] = []
