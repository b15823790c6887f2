"""The trio server: reads framed requests, runs each in its own task, writes answers.

One reader, one nursery owning every request task, one writer task that joins
queued lines into one write. Every request is answered exactly once, except a
cancelled one, which is never answered. The pieces: :mod:`hookd.serve.router`
starts the work, :mod:`hookd.serve.stdio_calls` computes answers,
:mod:`hookd.serve.reply` encodes them, :mod:`hookd.serve.writer` writes them.
"""

from __future__ import annotations

import collections
import contextlib
import time
from typing import Any

import structlog
import trio

from hookd import wire
from hookd.core.registry import Registration, Registry
from hookd.engine.kernel import Kernel
from hookd.engine.verdict import Verdict
from hookd.serve.config import ServeConfig
from hookd.serve.flight import InFlight, InlineRun, Key, Yielded
from hookd.serve.receive import Receiver
from hookd.serve.reply import Replies
from hookd.serve.request_log import RequestLines
from hookd.serve.router import PassthroughSink, Router
from hookd.serve.stdio_calls import StdioCalls, callback_answer, hook_call
from hookd.serve.writer import Writer

__all__ = ["ServeConfig", "Server", "serve"]

log = structlog.get_logger("hookd.server")


class Server:
    """Serves one registry over one pair of byte streams."""

    def __init__(self, registry: Registry, config: ServeConfig | None = None) -> None:
        self.registry = registry
        self.config = config or ServeConfig()
        self.kernel = Kernel(registry, validate=self.config.validate, observers=[RequestLines()])
        self._inflight = InFlight(self.config.max_in_flight, self.config.max_in_flight_bytes)
        self._writer = Writer()
        self._calls = StdioCalls(self.kernel)
        self._replies = Replies(self._writer)
        self._router = Router(self._calls, self._replies, self._inflight)
        self._receiver: Receiver | None = None
        self._framer = wire.LineFramer(self.config.max_line_bytes)
        self._pending: collections.deque[bytes | wire.Oversize] = collections.deque()
        self._eof = False
        self._reading_done = trio.Event()
        self._stopped = False

    # -- public -------------------------------------------------------------

    def send_line(self, line: bytes) -> None:
        """Queue one framed line for the writer (never blocks)."""
        self._writer.send_line(line)

    def prime(self, data: bytes) -> None:
        """Input read before :meth:`serve` started: served first."""
        if data:
            self._pending.extend(self._framer.feed(data))
            self._router.arrived = time.monotonic()

    @property
    def in_flight(self) -> int:
        """Requests started and not yet answered or withdrawn."""
        return len(self._inflight)

    @property
    def answered(self) -> int:
        """Answers sent (or gathered into a batch) so far."""
        return self._replies.answered

    @property
    def on_passthrough(self) -> PassthroughSink | None:
        """Called with every message that is not a request to hookd (host mode relays them)."""
        return self._router.on_passthrough

    @on_passthrough.setter
    def on_passthrough(self, sink: PassthroughSink | None) -> None:
        self._router.on_passthrough = sink

    def initialize_payload(self) -> dict[str, Any]:
        """The ``initialize`` answer: the hooks map plus hookd's name and version."""
        return self._calls.initialize_payload()

    async def serve(
        self,
        receive: trio.abc.ReceiveStream,
        send: trio.abc.SendStream,
        *,
        stop: trio.Event | None = None,
    ) -> None:
        """Serve until EOF on ``receive`` (or ``stop``); then flush and return.

        On EOF the hooks in flight finish within their deadlines and are
        answered (unless ``finish_on_eof`` is off); ``stop`` cancels them unanswered.
        """
        self._receiver = Receiver(receive, wire.READ_SIZE)
        async with trio.open_nursery() as outer:
            outer.start_soon(self._write, send, outer.cancel_scope)
            if stop is not None:
                outer.start_soon(self._stop_when, stop)
            async with trio.open_nursery() as requests:
                self._router.nursery = requests
                requests.start_soon(self._reader)
                await self._reading_done.wait()
                if not (self._eof and self.config.finish_on_eof) or self._stopped:
                    self._router.shutdown()
                elif len(self._inflight):
                    log.info("stdin.closed.finishing", in_flight=len(self._inflight))
            self._writer.close()
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            await send.aclose()

    # -- reading ------------------------------------------------------------

    async def _reader(self) -> None:
        """Read and serve lines until EOF, or until this task stays with an inline hook.

        A trio hook runs inline in the reader. If it yields to trio before it
        is done, a new reader task takes over the remaining lines and this one
        stays with the hook, under its own cancel scope as the hook's deadline.
        """
        inline = InlineRun()
        with inline.scope:
            await self._read_lines(inline)
        if inline.call is not None:
            self._end_inline(inline)

    async def _read_lines(self, inline: InlineRun) -> None:
        while True:
            while self._pending:
                yielded = self._on_line(self._pending.popleft())
                if yielded is not None:
                    await self._keep_hook(yielded, inline)
                    return  # this task now runs a hook; another one reads
            self._writer.write_now()  # before waiting: answers queued by the reader go out
            if self._eof:
                break
            await self._writer.wait_drained()  # the peer is not reading: neither do we
            assert self._receiver is not None
            data = await self._receiver.receive()
            self._writer.defer()  # the reader writes what it answers before it waits again
            if data:
                # every pending line is from this read: deadlines run from now
                self._router.arrived = time.monotonic()
                self._pending.extend(self._framer.feed(data))
            else:
                self._eof = True
                tail = self._framer.close()
                if tail is not None:
                    self._pending.append(tail)
        log.info("stdin.closed", in_flight=len(self._inflight))
        self._reading_done.set()

    def _on_line(self, line: bytes | wire.Oversize) -> Yielded | None:
        """Serve one line, without yielding; a trio hook that yielded is handed back."""
        if isinstance(line, wire.Oversize):
            self._router.on_oversize(line, self.config.max_line_bytes)
            return None
        decoded = wire.decode_line(line)
        if isinstance(decoded, list):
            self._router.on_batch(decoded, len(line))
            return None
        if (
            isinstance(decoded, wire.Call)
            and isinstance(decoded.body, wire.HookCallback)
            and decoded.request_id is not None
        ):
            reg = self.registry.get(decoded.body.callback_id)
            if reg is not None and self.kernel.executor.inline(reg):
                return self._inline(decoded, decoded.body, reg, len(line))
        self._router.on_message(decoded, line, None)
        return None

    # -- trio hooks, inline -------------------------------------------------

    def _inline(
        self, call: wire.Call, body: wire.HookCallback, reg: Registration, size: int
    ) -> Yielded | None:
        """Answer a trio hook's call at once; None, unless the hook yielded to trio.

        A hook that waits (sleeps, does I/O) would hand the reading over to a
        new task on every call; once seen waiting, the kernel runs its calls
        in a task each (the router's), started together with the rest of the batch.
        """
        assert call.request_id is not None
        key: Key = (call.framing, call.request_id)
        refusal = self._inflight.refusal(key, size)
        if refusal is not None:
            self._router.refuse(call, refusal, None)
            return None
        began = self.kernel.answer(hook_call(call, body, self._router.arrived), reg)
        if not isinstance(began, Verdict):
            return Yielded(call, key, began, began.started, size)
        self._replies.finish(call.framing, call.request_id, None, callback_answer(began))
        return None

    async def _keep_hook(self, yielded: Yielded, inline: InlineRun) -> None:
        """The inline hook yielded to trio: this task stays with it; a new one reads.

        Its deadline runs from when its line was read (R-128).
        """
        call, waiting = yielded.call, yielded.pending
        inline.adopt(yielded)
        self._inflight.add(yielded.key, inline.flight)
        assert self._router.nursery is not None
        self._router.nursery.start_soon(self._reader)
        if waiting.paused is not None:  # paused inline: its deadline is this task's scope's
            inline.scope.deadline = waiting.deadline
        verdict = await self.kernel.proceed(waiting)
        if inline.flight.withdrawn:
            return
        self._inflight.drop(yielded.key)
        self._replies.finish(call.framing, call.request_id, None, callback_answer(verdict))

    def _end_inline(self, inline: InlineRun) -> None:
        """After an inline run's scope: answer a hook that ran out of time."""
        call, pending = inline.call, inline.pending
        assert call is not None and pending is not None
        if inline.flight.withdrawn or not inline.scope.cancelled_caught:
            return
        self._inflight.drop(inline.key)
        answer = callback_answer(self.kernel.expired(pending))
        self._replies.finish(call.framing, call.request_id, None, answer)

    async def _stop_when(self, stop: trio.Event) -> None:
        """A signal: stop reading and cancel what is in flight, even while finishing after EOF."""
        await stop.wait()
        self._stopped = True
        self._reading_done.set()
        self._router.shutdown()

    # -- writing ------------------------------------------------------------

    async def _write(self, send: trio.abc.SendStream, outer: trio.CancelScope) -> None:
        def broken() -> None:
            self._router.shutdown()
            self._reading_done.set()

        await self._writer.run(send, broken)
        outer.cancel()


async def serve(
    registry: Registry,
    receive: trio.abc.ReceiveStream,
    send: trio.abc.SendStream,
    config: ServeConfig | None = None,
) -> Server:
    """Serve ``registry`` over the two streams until EOF; returns the server."""
    server = Server(registry, config)
    await server.serve(receive, send)
    return server
