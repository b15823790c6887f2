"""Replaying over stdio: ``hookd serve HOOKS`` on pipes, as the CLI runs it.

The replayer sends an ``initialize`` of its own first (so hookd is up before
the recorded clock starts, and its callback ids are known) and another one at
the end (the *fence*: hookd answers in order, so any answer it gave to a
request the recording left unanswered has arrived by then); then it closes
hookd's stdin and expects it to exit 0.
"""

from __future__ import annotations

import secrets
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import trio

from hookd.transcript.transport import START_TIMEOUT_S, Transport, serve_command
from hookd.wire import LineFramer, encode_initialize

if TYPE_CHECKING:
    from hookd.transcript.answers import Answers
    from hookd.transcript.plan import Key, Step
    from hookd.transcript.session import ReplayConfig, ReplayResult

__all__ = ["PROBE_PREFIX", "StdioTransport", "probe_key"]

PROBE_PREFIX: Final = "hookd-replay-"
MAX_ANSWER_BYTES: Final = 1 << 30


def probe_key(request_id: str) -> Key:
    """The answer key of one of the replayer's own ``initialize`` requests."""
    return ("control", f'"{request_id}"')


class StdioTransport(Transport):
    """Recorded lines to hookd's stdin, answers from its stdout."""

    def __init__(self, result: ReplayResult, config: ReplayConfig, folder: Path) -> None:
        super().__init__(result, config, folder)
        self._command = (
            list(config.command) if config.command is not None else serve_command(result, config)
        )
        nonce = secrets.token_hex
        self.init_id = f"{PROBE_PREFIX}initialize-{nonce(4)}"
        self.fence_id = f"{PROBE_PREFIX}fence-{nonce(4)}"
        result.answers.probes |= {probe_key(self.init_id), probe_key(self.fence_id)}
        self.stdin: trio.abc.SendStream | None = None

    @property
    def command(self) -> list[str]:
        return self._command

    async def start(self, nursery: trio.Nursery) -> bool:
        pipe = subprocess.PIPE
        proc = await self.spawn(nursery, stdin=pipe, stdout=pipe)
        assert proc.stdin is not None and proc.stdout is not None
        self.stdin = proc.stdin
        nursery.start_soon(_read_answers, proc.stdout, self.result.answers)
        timeout_s = max(START_TIMEOUT_S, self.config.timeout_s)
        self.initialize_answer = await self._probe(self.init_id, timeout_s)
        return self.initialize_answer is not None

    async def send(self, step: Step, msg: Any) -> bool:
        return await self._write(step.entry.wire_bytes(msg), f"line {step.entry.lineno}")

    async def drain(self) -> None:
        await self._probe(self.fence_id, self.config.timeout_s)

    async def stop(self) -> None:
        """Close hookd's input, then wait for it to exit (killing it after the timeout)."""
        if self.stdin is not None:
            await self.stdin.aclose()
        await self.wait_exit("its input closing")

    async def _write(self, data: bytes, what: str) -> bool:
        assert self.stdin is not None
        try:
            await self.stdin.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self.result.errors.append(f"hookd closed its input before {what} was sent")
            return False
        return True

    async def _probe(self, request_id: str, timeout_s: float) -> Any:
        if not await self._write(encode_initialize(request_id), f"the {request_id} request"):
            return None
        with trio.move_on_after(timeout_s):
            answer = await self.result.answers.wait_probe(probe_key(request_id))
            if answer is not None:
                return answer
        self.result.errors.append(f"no answer to the replayer's own {request_id} request")
        return None


async def _read_answers(stdout: trio.abc.ReceiveStream, answers: Answers) -> None:
    framer = LineFramer(MAX_ANSWER_BYTES)
    async for chunk in stdout:
        for line in framer.feed(bytes(chunk)):
            answers.deliver_line(line if isinstance(line, bytes) else line.head)
    tail = framer.close()
    if tail is not None:
        answers.deliver_line(tail if isinstance(tail, bytes) else tail.head)
    answers.close()
