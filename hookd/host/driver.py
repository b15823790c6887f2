"""One run of the CLI under ``hookd run``: what hookd writes to it, and when.

Order on the CLI's stdin: ``initialize`` (the hooks, with ids, timeouts and
failure policies) right after spawn; once the CLI accepted it, the prompt (or
the user's stream-json lines, relayed); answers to every request as they are
ready. The CLI's stdin is closed only when the run is over (see
:mod:`hookd.host.lifetime`); then hookd serves the CLI until its stdout closes.
Conversation messages are relayed to hookd's stdout through an unbounded
buffer, so a slow reader never stalls a control request.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import msgspec
import structlog
import trio

from hookd import wire
from hookd.core.registry import Registry
from hookd.host.ending import RunRecord, Watch
from hookd.host.lifetime import RunLifetime
from hookd.host.progress import Progress
from hookd.host.relay import CliInput, Observed
from hookd.host.stdio import HostIO, ThreadWriter
from hookd.serve.config import ServeConfig
from hookd.serve.server import Server
from hookd.serve.writer import Writer
from hookd.transcript.format import Patterns, no_patterns
from hookd.transcript.tee import tee_from_env

__all__ = ["Driver", "HostOptions", "recorded", "user_message"]

log = structlog.get_logger("hookd.driver")

#: After a result, how long the CLI may report work with no new turn before stdin closes.
RUN_END_CEILING_S: Final = 600.0
#: After the CLI exits, how long its stdout may stay open (held by a grandchild).
EOF_GRACE_S: Final = 5.0


@dataclass(frozen=True, slots=True)
class HostOptions:
    """How ``hookd run`` drives the CLI (times in seconds)."""

    prompt: str | None = None
    init_timeout_s: float = 60.0
    progress: bool = False
    config: ServeConfig = field(default_factory=ServeConfig)
    hooks: str | None = None  # the hooks spec, named in a recorded transcript's header
    serve_args: tuple[str, ...] = ()  # the matching `hookd serve` options, likewise
    cli_stderr: Path | None = None  # where the CLI's stderr goes (None: hookd's stderr)


def user_message(prompt: str) -> dict[str, Any]:
    """The stream-json line that submits ``prompt`` as a user turn."""
    return {
        "type": "user",
        "message": {"role": "user", "content": prompt},
        "parent_tool_use_id": None,
        "session_id": "default",
    }


def recorded(
    receive: trio.abc.ReceiveStream,
    send: trio.abc.SendStream,
    options: HostOptions,
    patterns: Patterns = no_patterns,
) -> tuple[trio.abc.ReceiveStream, trio.abc.SendStream]:
    """The CLI's streams, teed into the transcript ``$HOOKD_RECORD`` names, if set (redacted
    with the built-in patterns and ``patterns()``, the module's own)."""
    return tee_from_env(
        receive, send, hooks=options.hooks, serve_args=options.serve_args, mode="host",
        patterns=patterns,
    )  # fmt: skip


class Driver:
    """One run of the CLI: the server, the relays, and the stdin lifetime."""

    def __init__(
        self,
        registry: Registry,
        proc: trio.Process,
        options: HostOptions,
        io: HostIO,
        *,
        hide_host_only: bool = False,
    ) -> None:
        self.registry = registry
        self.proc = proc
        self.options = options
        self.io = io
        self.server = Server(registry, options.config)
        self.server.on_passthrough = self._on_passthrough
        self.lifetime = RunLifetime()
        self.hide_host_only = hide_host_only
        self.failure: str | None = None
        self.output = Writer("stdout")
        if io.stdout is None:
            self.output.close()  # nothing is relayed: drop conversation lines at once
        self.notes = Writer("stderr")
        self.progress = Progress(self._note) if options.progress else None
        self.record = RunRecord()
        self.initialized = False
        self._turn_over = trio.lowlevel.ParkingLot()
        self._changed = trio.Event()
        self._stop = trio.Event()
        self._init_id = f"req_1_{secrets.token_hex(4)}"
        self._init_answer: dict[str, Any] | None = None
        self._init_done = trio.Event()

    # -- the run ------------------------------------------------------------

    async def run(self) -> None:
        """Serve the CLI until its stdout closes; flush what is left to relay."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        progress = self.progress
        cli_out, cli_stdin = recorded(
            self.proc.stdout, self.proc.stdin, self.options, lambda: self.registry.redact
        )
        watch = Watch(self.record, progress)
        cli_in = CliInput(cli_stdin, watch.to_cli)
        cli_out = Observed(cli_out, watch.from_cli)
        async with trio.open_nursery() as sinks:
            if self.io.stdout is not None:
                sinks.start_soon(self.output.run, self.io.stdout)
            sinks.start_soon(self.notes.run, ThreadWriter(self.io.stderr_fd))
            async with trio.open_nursery() as session:
                session.start_soon(self._drive, cli_in)
                session.start_soon(self._stop_after_exit)
                await self.server.serve(cli_out, cli_in, stop=self._stop)
                session.cancel_scope.cancel()
            self.output.close()
            self.notes.close()

    async def _drive(self, cli_in: CliInput) -> None:
        self.server.send_line(self._initialize_line())
        if not await self._initialized():
            if self._init_answer is None:
                self.proc.kill()
            await cli_in.aclose()
            return
        async with trio.open_nursery() as nursery:
            if self.options.prompt is not None:
                self._send_prompt(self.options.prompt)
                self.lifetime.end_of_input()
            else:
                nursery.start_soon(self._relay_input)
            await self._close_at_end(cli_in)

    def _initialize_line(self) -> bytes:
        request = {"subtype": "initialize", "hooks": self.registry.hooks_map()}
        message = {"type": "control_request", "request_id": self._init_id, "request": request}
        return wire.encode_message(message)

    async def _initialized(self) -> bool:
        with trio.move_on_after(self.options.init_timeout_s):
            await self._init_done.wait()
        answer = self._init_answer
        if answer is None:
            timeout = self.options.init_timeout_s
            return self._fail(f"the CLI did not answer initialize within {timeout:g}s")
        if answer.get("subtype") != "success":
            return self._fail(f"the CLI refused initialize: {answer.get('error')}")
        payload = answer.get("response") if isinstance(answer.get("response"), dict) else {}
        version = payload.get("claude_code_version") if payload else None
        log.info("cli.initialized", hooks=len(self.registry), cli_version=version)
        self.initialized = True
        count = len(self.registry)
        self._note(f"hookd: {count} hook{'' if count == 1 else 's'} registered with the CLI")
        return True

    def _fail(self, reason: str) -> bool:
        self.failure = reason  # said on stderr at the end (see hookd.host.ending)
        log.info("run.failed", reason=reason)
        return False

    def _send_prompt(self, prompt: str) -> None:
        self.server.send_line(wire.encode_message(user_message(prompt)))
        self._prompt_sent()

    def _prompt_sent(self) -> None:
        self.lifetime.prompt_sent()
        self.record.prompt_sent()

    async def _turn_done(self) -> None:
        """Wait until the CLI answered the last prompt with a ``result``."""
        while self.lifetime.prompts and not self.lifetime.result_seen:
            await self._turn_over.park()

    async def _relay_input(self) -> None:
        """Relay hookd's stdin (stream-json lines) to the CLI until EOF."""
        framer = wire.LineFramer(self.options.config.max_line_bytes)
        if self.io.stdin is not None:
            while data := await self.io.stdin.receive_some(wire.READ_SIZE):
                for line in framer.feed(bytes(data)):
                    await self._relay_line(line)
        tail = framer.close()
        if tail is not None:
            await self._relay_line(tail)
        self.lifetime.end_of_input()
        self._changed.set()

    async def _relay_line(self, line: bytes | wire.Oversize) -> None:
        """One line of hookd's stdin: a stream-json message, or plain text as a prompt.

        A prompt (a ``user`` message or plain text) waits for the ``result`` of
        the one before it, so that each prompt is a turn of its own.
        """
        if isinstance(line, wire.Oversize):
            log.warning("input.too_long", size=line.size)
            return
        found = _as_message(line)
        if found is None:
            return
        message, data = found
        if _is_initialize(message):
            self._refuse_initialize(message)
            return
        if message.get("type") == "user":
            await self._turn_done()
            self._prompt_sent()
        self.server.send_line(data)

    def _refuse_initialize(self, message: dict[str, Any]) -> None:
        text = "hookd run has initialized the CLI already; hooks come from --hooks"
        response = {"subtype": "error", "request_id": message.get("request_id"), "error": text}
        self.output.send_line(
            wire.encode_message({"type": "control_response", "response": response})
        )

    async def _close_at_end(self, cli_in: CliInput) -> None:
        """Close the CLI's stdin once the run is over, and only then."""
        while not self.lifetime.finished:
            if self.lifetime.between_turns:
                with trio.move_on_after(RUN_END_CEILING_S) as ceiling:
                    await self._changed.wait()
                if ceiling.cancelled_caught:
                    log.warning("run.ceiling", waited_s=RUN_END_CEILING_S)
                    break
            else:
                await self._changed.wait()
            self._changed = trio.Event()
        await cli_in.aclose()
        log.info("cli_stdin.closed", results=self.lifetime.results)

    async def _stop_after_exit(self) -> None:
        await self.proc.wait()
        await trio.sleep(EOF_GRACE_S)
        log.warning("cli.stdout_held_open", note="the CLI exited but its stdout stayed open")
        self._stop.set()

    # -- lines from the CLI -------------------------------------------------

    def _on_passthrough(self, line: bytes, msg: wire.Passthrough) -> None:
        obj = msg.message
        if obj is None:
            self.output.send_line(line + b"\n")
            return
        if msg.type == "control_response" and self._own_answer(obj):
            return
        if self.lifetime.observe(obj):
            self._changed.set()
            self._turn_over.unpark_all()
        if self.hide_host_only and obj.get("sdk_host_only") is True:
            return
        self.output.send_line(line + b"\n")

    def _own_answer(self, obj: dict[str, Any]) -> bool:
        response = obj.get("response")
        if not isinstance(response, dict) or response.get("request_id") != self._init_id:
            return False
        self._init_answer = response
        self._init_done.set()
        return True

    def _note(self, text: str) -> None:
        if self.progress is not None:
            self.notes.send_line(text.encode() + b"\n")


def _as_message(line: bytes) -> tuple[dict[str, Any], bytes] | None:
    """A stdin line as a stream-json message and the line to send; plain text is a prompt."""
    try:
        message = msgspec.json.decode(line)
    except msgspec.DecodeError:
        text = line.decode("utf-8", "replace").strip()
        if not text:
            return None
        prompt = user_message(text)
        return prompt, wire.encode_message(prompt)
    if not isinstance(message, dict):
        log.warning("input.invalid", error="a JSON line that is not an object")
        return None
    return message, line + b"\n"


def _is_initialize(message: dict[str, Any]) -> bool:
    request = message.get("request")
    return (
        message.get("type") == "control_request"
        and isinstance(request, dict)
        and request.get("subtype") == "initialize"
    )
