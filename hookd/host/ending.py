"""How a ``hookd run`` ended: its exit code and the one line that says why.

Sans-IO: fed the messages the CLI prints and the answers hookd writes to it
(and told about signals and the CLI's exit), it tells apart a run that
finished from one a hook stopped, a prompt a hook blocked, a CLI that died
early and an interrupted run.

=====  ===========================================================
code   meaning
=====  ===========================================================
0      the run finished (the CLI's own exit code if it was not 0)
1      the CLI refused ``initialize`` or did not answer it in time
2      a usage error (bad options)
3      the CLI exited before the run was over (before ``initialize``
       was answered, or before the result of the last prompt)
4      a hook stopped the run (``HookAbortError``, ``continue: false``)
5      a hook blocked a prompt (UserPromptSubmit ``decision: block``)
127    the CLI could not be started
130    interrupted by SIGINT (Ctrl-C); 143 by SIGTERM
=====  ===========================================================
"""

from __future__ import annotations

import signal
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

import msgspec

from hookd import wire

if TYPE_CHECKING:
    from hookd.host.progress import Progress

__all__ = [
    "EXIT_BLOCKED",
    "EXIT_CLI_DIED",
    "EXIT_INIT",
    "EXIT_STOPPED",
    "Ending",
    "RunRecord",
    "Watch",
]

EXIT_INIT: Final = 1
EXIT_CLI_DIED: Final = 3
EXIT_STOPPED: Final = 4
EXIT_BLOCKED: Final = 5

JsonObject = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Ending:
    """hookd's exit code, and the line for stderr (None: nothing to say)."""

    code: int
    line: str | None


def _text(value: Any, width: int = 160) -> str:
    text = " ".join(str(value or "").split())
    return text if len(text) <= width else text[: width - 3] + "..."


@dataclass(slots=True)
class RunRecord:
    """What happened in one run, as far as it decides the exit code."""

    prompt_requests: set[str] = field(default_factory=set)
    stopped: str | None = None
    blocked: str | None = None
    results: int = 0
    prompts: int = 0
    results_since_prompt: int = 0
    signal: int | None = None

    def signaled(self, signum: int) -> None:
        """hookd got SIGINT or SIGTERM (and passed it on to the CLI)."""
        if self.signal is None:
            self.signal = signum

    def prompt_sent(self) -> None:
        self.prompts += 1
        self.results_since_prompt = 0

    def cli_message(self, msg: JsonObject) -> None:
        """One message the CLI printed: a ``result`` ends a turn; a UserPromptSubmit
        request is remembered, for its answer (a conversation message is no protocol
        message, so only its ``type`` is read here)."""
        if msg.get("type") == "result":
            self.results += 1
            self.results_since_prompt += 1
            return
        seen = wire.classify(msg)
        if seen is None or seen.kind != "request" or seen.framing != "control":
            return
        data = seen.body.get("input") if seen.body is not None else None
        if isinstance(data, dict) and data.get("hook_event_name") == "UserPromptSubmit":
            self.prompt_requests.add(str(seen.request_id))

    def host_message(self, msg: JsonObject) -> None:
        """One message hookd wrote to the CLI: its answers say what the hooks decided."""
        seen = wire.classify(msg)
        if seen is None or seen.kind != "response" or seen.framing != "control":
            return
        payload = seen.payload
        if not seen.success or not isinstance(payload, dict):
            return
        if payload.get("continue") is False and self.stopped is None:
            self.stopped = _text(payload.get("stopReason")) or "continue: false"
        request_id = str(seen.request_id)
        if request_id in self.prompt_requests and payload.get("decision") == "block":
            self.blocked = _text(payload.get("reason")) or "decision: block"

    def ending(self, cli_code: int, *, initialized: bool, failure: str | None) -> Ending:
        """The exit code and the line for a run whose CLI exited with ``cli_code``."""
        if self.signal is not None:
            name = signal.Signals(self.signal).name
            return Ending(
                128 + self.signal, f"hookd run: interrupted ({name}): the CLI was stopped"
            )
        if failure is not None:
            return Ending(EXIT_INIT, f"hookd run: error: {failure}")
        if not initialized:
            return Ending(
                EXIT_CLI_DIED,
                f"hookd run: error: the CLI exited (code {cli_code}) before answering "
                "initialize: no prompt ran (its own messages, if any, are above)",
            )
        if self.stopped is not None:
            return Ending(EXIT_STOPPED, f"hookd run: stopped by a hook: {self.stopped}")
        if self.blocked is not None:
            return Ending(EXIT_BLOCKED, f"hookd run: prompt blocked by a hook: {self.blocked}")
        if self.prompts and not self.results_since_prompt:
            return Ending(
                EXIT_CLI_DIED,
                f"hookd run: error: the CLI exited (code {cli_code}) before the result of "
                "the last prompt",
            )
        if cli_code != 0:
            return Ending(cli_code, f"hookd run: error: the CLI exited with code {cli_code}")
        return Ending(0, None)


class Watch:
    """Frames and decodes both directions of the CLI's stdio for the verdict and the view."""

    def __init__(self, record: RunRecord, progress: Progress | None) -> None:
        self.record, self.progress = record, progress
        self._from_cli = wire.LineFramer()
        self._to_cli = wire.LineFramer()

    def from_cli(self, data: bytes) -> None:
        """Bytes the CLI wrote on its stdout."""
        for msg in _messages(self._from_cli, data):
            self.record.cli_message(msg)
            if self.progress is not None:
                self.progress.cli_message(msg)

    def to_cli(self, data: bytes) -> None:
        """Bytes hookd wrote to the CLI's stdin."""
        for msg in _messages(self._to_cli, data):
            self.record.host_message(msg)
            if self.progress is not None:
                self.progress.host_message(msg)


_decode = msgspec.json.Decoder().decode


def _messages(framer: wire.LineFramer, data: bytes) -> list[JsonObject]:
    out = []
    for line in framer.feed(data):
        if isinstance(line, bytes):
            try:
                message = _decode(line)
            except msgspec.DecodeError:
                continue
            if isinstance(message, dict):
                out.append(message)
    return out
