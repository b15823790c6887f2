"""The trio server: reads framed requests, runs each in its own task, writes answers.

One reader, one nursery owning every request task, one writer task that joins
queued lines into one write. Every request is answered exactly once, except a
cancelled one, which is never answered.
"""

from __future__ import annotations

import collections
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import msgspec
import structlog
import trio

from hookd import wire
from hookd.core.context import HookContext
from hookd.core.policy import Answer, Outcome, resolve
from hookd.core.registry import Registration, Registry
from hookd.engine.executor import Executor, effective_timeout
from hookd.events import EVENTS
from hookd.events.validation import check_input
from hookd.serve import log as hookd_log
from hookd.serve.early import initialize_payload
from hookd.serve.flight import Batch, Flight, Key, Runner
from hookd.serve.writer import Writer
from hookd.wire.errors import UNKNOWN_CALLBACK_TEXT, ErrorKind

__all__ = ["ServeConfig", "Server", "serve"]

log = structlog.get_logger("hookd.server")

READ_SIZE: Final = 256 * 1024
LOG_FLUSH_S: Final = 0.05

PassthroughSink = Callable[[bytes, wire.Passthrough], None]


@dataclass(frozen=True, slots=True)
class ServeConfig:
    """Server limits and switches (sizes in bytes, times in seconds)."""

    max_line_bytes: int = wire.DEFAULT_MAX_LINE_BYTES
    max_in_flight: int = 4096
    max_in_flight_bytes: int = 256 * 1024 * 1024
    validate: bool = True


class Server:
    """Serves one registry over one pair of byte streams."""

    def __init__(self, registry: Registry, config: ServeConfig | None = None) -> None:
        self.registry = registry
        self.config = config or ServeConfig()
        self.executor = Executor(validate=self.config.validate)
        self._inflight: dict[Key, Flight] = {}
        self._writer = Writer()
        self._nursery: trio.Nursery | None = None
        self._warned_events: set[str] = set()
        self.on_passthrough: PassthroughSink | None = None
        self.answered = 0
        self._receive: trio.abc.ReceiveStream | None = None
        self._framer = wire.LineFramer(self.config.max_line_bytes)
        self._pending: collections.deque[bytes | wire.Oversize] = collections.deque()
        self._eof = False
        self._reading_done = trio.Event()
        self._inflight_bytes = 0
        self._waits: set[str] = set()  # callback ids seen yielding to trio

    # -- public -------------------------------------------------------------

    def send_line(self, line: bytes) -> None:
        """Queue one framed line for the writer (never blocks)."""
        self._writer.send_line(line)

    def prime(self, data: bytes) -> None:
        """Input read before :meth:`serve` started: served first."""
        if data:
            self._pending.extend(self._framer.feed(data))

    @property
    def in_flight(self) -> int:
        """Requests started and not yet answered or withdrawn."""
        return len(self._inflight)

    async def serve(
        self,
        receive: trio.abc.ReceiveStream,
        send: trio.abc.SendStream,
        *,
        stop: trio.Event | None = None,
    ) -> None:
        """Serve until EOF on ``receive`` (or ``stop``); then cancel, flush and return."""
        self._receive = receive
        async with trio.open_nursery() as outer:
            outer.start_soon(self._write, send, outer.cancel_scope)
            outer.start_soon(self._log_flusher)
            if stop is not None:
                outer.start_soon(_set_when, stop, self._reading_done)
            async with trio.open_nursery() as requests:
                self._nursery = requests
                requests.start_soon(self._reader)
                await self._reading_done.wait()
                self._shutdown()
            self._writer.close()
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            await send.aclose()
        hookd_log.flush()

    # -- reading ------------------------------------------------------------

    async def _reader(self) -> None:
        """Read and serve lines until EOF, or until this task becomes a hook's runner.

        A trio hook runs inline in the reader. If it yields to trio before it
        is done, a new reader task takes over the remaining lines and this one
        stays with the hook, under its own cancel scope as the hook's deadline.
        """
        runner = Runner()
        with runner.scope:
            await self._read_lines(runner)
        if runner.call is not None:
            self._end_runner(runner)

    async def _read_lines(self, runner: Runner) -> None:
        while True:
            while self._pending:
                if await self._on_line(self._pending.popleft(), runner):
                    return  # this task now runs a hook; another one reads
            if self._eof:
                break
            self._writer.write_now()
            await self._writer.wait_drained()  # the peer is not reading: neither do we
            assert self._receive is not None
            data = await self._receive.receive_some(READ_SIZE)
            if data:
                self._pending.extend(self._framer.feed(bytes(data)))
            else:
                self._eof = True
                tail = self._framer.close()
                if tail is not None:
                    self._pending.append(tail)
        log.info("stdin.closed", in_flight=len(self._inflight))
        self._reading_done.set()

    async def _on_line(self, line: bytes | wire.Oversize, runner: Runner) -> bool:
        """Serve one line; True when this task has become the runner of a hook."""
        if isinstance(line, wire.Oversize):
            self._on_oversize(line)
            return False
        decoded = wire.decode_line(line)
        if isinstance(decoded, list):
            self._on_batch(decoded, len(line))
            return False
        if (
            isinstance(decoded, wire.Call)
            and isinstance(decoded.body, wire.HookCallback)
            and decoded.request_id is not None
        ):
            reg = self.registry.get(decoded.body.callback_id)
            if reg is not None and self._runs_inline(reg):
                try:
                    return await self._inline(decoded, decoded.body, reg, runner, len(line))
                except Exception as exc:  # a fault in hookd itself: answer, keep reading
                    return self._internal_error(decoded, runner, exc)
        self._on_message(decoded, line, None)
        return False

    def _runs_inline(self, reg: Registration) -> bool:
        """Trio hooks run inline until one of their calls yields to trio.

        A hook that waits (sleeps, does I/O) would hand the reading over to a
        new task on every call, one line per scheduler pass; once seen waiting,
        its calls get a task each, started together with the rest of the batch.
        """
        return reg.runner == "trio" and reg.retry is None and reg.callback_id not in self._waits

    async def _inline(
        self,
        call: wire.Call,
        body: wire.HookCallback,
        reg: Registration,
        runner: Runner,
        size: int,
    ) -> bool:
        assert call.request_id is not None
        key: Key = (call.framing, call.request_id)
        if self._refused(call, key, None, size):
            return False
        started = time.perf_counter()
        problem = self._check_input(reg, body.input)
        if problem is not None:
            answer = Answer("invalid", error_kind=ErrorKind.INVALID_REQUEST, message=problem)
            self._finish(call.framing, call.request_id, None, answer, started=started, call=call)
            return False
        ctx = self._context(call.request_id, reg, body)

        def become_runner() -> None:
            self._waits.add(reg.callback_id)
            runner.adopt(call, key, reg, ctx, started)
            runner.flight.size = size
            self._add_flight(key, runner.flight)
            runner.scope.deadline = trio.current_time() + effective_timeout(reg.timeout_s)
            assert self._nursery is not None
            self._nursery.start_soon(self._reader)

        outcome = await self.executor.run_inline(
            reg, body.input, body.tool_use_id, ctx, become_runner
        )
        if runner.call is not None:
            if runner.flight.withdrawn:
                return True
            self._drop_flight(key)
        self._finish(
            call.framing, call.request_id, None, resolve(reg, outcome), started=started, call=call
        )
        return runner.call is not None

    def _internal_error(self, call: wire.Call, runner: Runner, exc: Exception) -> bool:
        log.exception("internal.error", request_id=call.request_id)
        if runner.call is not None:
            if runner.flight.withdrawn:
                return True
            self._drop_flight(runner.key)
        answer = Answer(
            "internal_error",
            error_kind=ErrorKind.INTERNAL_ERROR,
            message=f"internal error: {type(exc).__name__}",
        )
        self._finish(call.framing, call.request_id, None, answer)
        return runner.call is not None

    def _end_runner(self, runner: Runner) -> None:
        """After a runner's scope: answer a hook that ran out of time."""
        call, reg, ctx = runner.call, runner.reg, runner.ctx
        assert call is not None and reg is not None and ctx is not None
        if runner.flight.withdrawn or not runner.scope.cancelled_caught:
            return
        self._drop_flight(runner.key)
        answer = resolve(reg, self.executor.timed_out(reg, ctx))
        self._finish(call.framing, call.request_id, None, answer, started=runner.started, call=call)

    def _on_message(
        self, msg: wire.Message, line: bytes, batch: Batch | None, size: int = 0
    ) -> None:
        match msg:
            case wire.Call():
                self._on_call(msg, batch, size or len(line))
            case wire.Cancel():
                self._on_cancel(msg)
            case wire.Invalid():
                self._on_invalid(msg, batch)
            case wire.Passthrough():
                self._on_passthrough(msg, line)

    def _on_call(self, call: wire.Call, batch: Batch | None, size: int) -> None:
        if isinstance(call.body, wire.Initialize):  # cheap: answered inline, never queued
            answer = Answer("ok", payload=self.initialize_payload(), event="initialize")
            if call.request_id is not None:
                self._finish(call.framing, call.request_id, batch, answer)
            else:
                self._batch_item_done(batch, None)
            return
        if call.request_id is None:  # JSON-RPC notification: run, never answer
            assert self._nursery is not None
            self._nursery.start_soon(self._run_notification, call)
            self._batch_item_done(batch, None)
            return
        key: Key = (call.framing, call.request_id)
        if self._refused(call, key, batch, size):
            return
        flight = Flight(batch)
        flight.size = size
        self._add_flight(key, flight)
        assert self._nursery is not None
        self._nursery.start_soon(self._run_call, call, key, flight)

    def _refused(self, call: wire.Call, key: Key, batch: Batch | None, size: int) -> bool:
        """Duplicates are ignored, and requests over the in-flight limits refused."""
        if key in self._inflight:
            log.warning("request.duplicate", request_id=call.request_id)
            self._batch_item_done(batch, None)
            return True
        over = self._over_limit(size)
        if over is not None:
            answer = Answer("overloaded", error_kind=ErrorKind.OVERLOADED, message=over)
            self._finish(call.framing, call.request_id, batch, answer)
            return True
        return False

    def _over_limit(self, size: int) -> str | None:
        if len(self._inflight) >= self.config.max_in_flight:
            return f"too many requests in flight (limit {self.config.max_in_flight})"
        if self._inflight_bytes + size > self.config.max_in_flight_bytes:
            limit = self.config.max_in_flight_bytes
            return f"too many bytes of requests in flight (limit {limit})"
        return None

    def _add_flight(self, key: Key, flight: Flight) -> None:
        self._inflight[key] = flight
        self._inflight_bytes += flight.size

    def _drop_flight(self, key: Key) -> Flight | None:
        flight = self._inflight.pop(key, None)
        if flight is not None:
            self._inflight_bytes -= flight.size
        return flight

    def _on_cancel(self, cancel: wire.Cancel) -> None:
        flight = self._drop_flight((cancel.framing, cancel.request_id))
        if flight is None:
            log.debug("cancel.unknown", request_id=cancel.request_id)
            return
        flight.withdrawn = True
        flight.scope.cancel()
        log.info("request.cancelled", request_id=cancel.request_id, by="peer")
        self._batch_item_done(flight.batch, None)

    def _on_invalid(self, msg: wire.Invalid, batch: Batch | None) -> None:
        log.warning(
            "request.invalid",
            request_id=msg.request_id,
            error=msg.message,
            error_code=msg.kind.error_code,
        )
        if msg.answer and (msg.request_id is not None or msg.framing == "jsonrpc"):
            self._finish(
                msg.framing,
                msg.request_id,
                batch,
                Answer("invalid", error_kind=msg.kind, message=msg.message),
            )
        else:
            self._batch_item_done(batch, None)

    def _on_passthrough(self, msg: wire.Passthrough, line: bytes) -> None:
        if self.on_passthrough is not None:
            self.on_passthrough(line, msg)
        else:
            log.debug("message.skipped", type=msg.type)

    def _on_oversize(self, big: wire.Oversize) -> None:
        limit = self.config.max_line_bytes
        found = wire.recover_id(big.head)
        log.warning(
            "line.too_long",
            size=big.size,
            max_line_bytes=limit,
            request_id=found[1] if found else None,
        )
        if found is not None:
            text = f"message of {big.size} bytes exceeds the line limit of {limit} bytes"
            self._finish(
                found[0],
                found[1],
                None,
                Answer("invalid", error_kind=ErrorKind.INVALID_REQUEST, message=text),
            )

    def _on_batch(self, messages: list[wire.Message], size: int) -> None:
        batch = Batch(len(messages))
        for msg in messages:
            self._on_message(msg, b"", batch, max(1, size // len(messages)))

    # -- running ------------------------------------------------------------

    async def _run_call(self, call: wire.Call, key: Key, flight: Flight) -> None:
        started = time.perf_counter()
        try:
            answer = await self._answer(call, flight.scope)
        except Exception as exc:  # a bug in hookd itself: answer it, keep serving
            log.exception("internal.error", request_id=call.request_id)
            answer = Answer(
                "internal_error",
                error_kind=ErrorKind.INTERNAL_ERROR,
                message=f"internal error: {type(exc).__name__}: {exc}",
            )
        if flight.withdrawn or answer is None:
            return  # cancelled by the peer or by shutdown: no answer
        self._drop_flight(key)
        self._finish(
            call.framing, call.request_id, flight.batch, answer, started=started, call=call
        )

    async def _run_notification(self, call: wire.Call) -> None:
        answer = await self._answer(call, trio.CancelScope())
        outcome = answer.outcome if answer is not None else "cancelled"
        log.info("notification.done", method=type(call.body).__name__, outcome=outcome)

    async def _answer(self, call: wire.Call, scope: trio.CancelScope) -> Answer | None:
        body = call.body
        if isinstance(body, wire.HookCallback):  # the hot path: the executor enters the scope
            return await self._hook_callback(call.request_id, body, scope)
        with scope:
            return await self._answer_other(call)
        return None  # cancelled

    async def _answer_other(self, call: wire.Call) -> Answer:
        body = call.body
        match body:
            case wire.Initialize():
                return Answer("ok", payload=self.initialize_payload())
            case wire.CanUseTool():
                from hookd.engine.permission import answer_can_use_tool

                return await answer_can_use_tool(self.registry, call.request_id, body)
            case wire.HookDispatch():
                from hookd.engine.dispatch import answer_dispatch

                return await answer_dispatch(self.registry, self.executor, call.request_id, body)
        raise AssertionError(f"unhandled body {body!r}")  # pragma: no cover

    def initialize_payload(self) -> dict[str, Any]:
        """The ``initialize`` answer: the hooks map plus hookd's name and version."""
        return initialize_payload(self.registry)

    async def _hook_callback(
        self, request_id: wire.RequestId | None, body: wire.HookCallback, scope: trio.CancelScope
    ) -> Answer:
        reg = self.registry.get(body.callback_id)
        if reg is None:
            return Answer(
                "unknown_callback",
                error_kind=ErrorKind.UNKNOWN_CALLBACK,
                message=UNKNOWN_CALLBACK_TEXT.format(callback_id=body.callback_id),
            )
        problem = self._check_input(reg, body.input)
        if problem is not None:
            return Answer("invalid", error_kind=ErrorKind.INVALID_REQUEST, message=problem)
        ctx = self._context(request_id, reg, body)
        outcome = await self.executor.run(reg, body.input, body.tool_use_id, ctx, scope)
        return resolve(reg, outcome)

    def _context(
        self, request_id: wire.RequestId | None, reg: Registration, body: wire.HookCallback
    ) -> HookContext:
        return HookContext(
            request_id=request_id,
            callback_id=reg.callback_id,
            event=reg.event,
            tool_use_id=body.tool_use_id,
            timeout_s=reg.timeout_s,
            state=self.registry.session_state(body.input.get("session_id")),
        )

    def _check_input(self, reg: Registration, input_data: dict[str, Any]) -> str | None:
        if not self.config.validate:
            return None
        if reg.event not in EVENTS and reg.event not in self._warned_events:
            self._warned_events.add(reg.event)
            log.warning("event.unknown", _event=reg.event, note="input passed through unchecked")
        return check_input(reg.event, input_data)

    # -- answering ----------------------------------------------------------

    def _finish(
        self,
        framing: wire.Framing,
        request_id: wire.RequestId | None,
        batch: Batch | None,
        answer: Answer,
        *,
        started: float | None = None,
        call: wire.Call | None = None,
    ) -> None:
        if batch is None:
            self.send_line(self._encode_line(framing, request_id, answer, call))
        else:
            self._batch_item_done(batch, self._encode_answer(framing, request_id, answer, call))
        self.answered += 1
        if started is not None and call is not None:
            _log_completed(call, answer, started)

    def _encode_answer(
        self,
        framing: wire.Framing,
        request_id: wire.RequestId | None,
        answer: Answer,
        call: wire.Call | None,
    ) -> msgspec.Struct:
        if answer.error_kind is not None:
            return wire.error_object(framing, request_id, answer.error_kind, answer.message)
        try:
            raw = msgspec.Raw(msgspec.json.encode(answer.payload))
        except (TypeError, ValueError, OverflowError, RecursionError) as exc:
            answer2 = self._unencodable(call, exc)
            if answer2.error_kind is not None:
                return wire.error_object(framing, request_id, answer2.error_kind, answer2.message)
            raw = msgspec.Raw(msgspec.json.encode(answer2.payload))
        return wire.success_object(framing, request_id, raw)

    def _encode_line(
        self,
        framing: wire.Framing,
        request_id: wire.RequestId | None,
        answer: Answer,
        call: wire.Call | None,
    ) -> bytes:
        """One answer line, in one encode (the batch path checks the payload on its own)."""
        if answer.error_kind is None:
            try:
                return wire.encode_success(framing, request_id, answer.payload)
            except (TypeError, ValueError, OverflowError, RecursionError):
                pass  # the slow path below names the problem
        return wire.encode_message(self._encode_answer(framing, request_id, answer, call))

    def _unencodable(self, call: wire.Call | None, exc: Exception) -> Answer:
        message = f"output is not JSON-serialisable: {exc}"
        body = call.body if call is not None else None
        reg = self.registry.get(body.callback_id) if isinstance(body, wire.HookCallback) else None
        if reg is None:
            return Answer("invalid_output", error_kind=ErrorKind.INTERNAL_ERROR, message=message)
        return resolve(reg, Outcome("invalid_output", message=message))

    def _batch_item_done(self, batch: Batch | None, obj: msgspec.Struct | None) -> None:
        if batch is None:
            return
        if obj is not None:
            batch.answers.append(obj)
        batch.pending -= 1
        if batch.pending == 0 and batch.answers:
            self.send_line(wire.encode_batch(batch.answers))

    def _shutdown(self) -> None:
        """Stop every request in flight; none of them is answered."""
        for flight in self._inflight.values():
            flight.withdrawn = True
            flight.scope.cancel()
        if self._nursery is not None:
            self._nursery.cancel_scope.cancel()
        self._inflight.clear()
        self._inflight_bytes = 0

    # -- writing ------------------------------------------------------------

    async def _write(self, send: trio.abc.SendStream, outer: trio.CancelScope) -> None:
        def broken() -> None:
            self._shutdown()
            self._reading_done.set()

        await self._writer.run(send, broken)
        outer.cancel()

    async def _log_flusher(self) -> None:
        while True:
            await trio.sleep(LOG_FLUSH_S)
            hookd_log.flush()


async def _set_when(event: trio.Event, other: trio.Event) -> None:
    await event.wait()
    other.set()


def _log_completed(call: wire.Call, answer: Answer, started: float) -> None:
    body = call.body
    hookd_log.request_line(
        call.request_id,
        getattr(body, "callback_id", None),
        event=answer.event,
        method=body.__struct_config__.tag,  # type: ignore[arg-type]
        outcome=answer.outcome,
        elapsed_ms=round((time.perf_counter() - started) * 1000, 3),
    )


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
