"""A scripted fake of the Anthropic Messages API, served on 127.0.0.1 from a thread.

The real CLI is pointed at it with ``ANTHROPIC_BASE_URL``. Each ``POST /v1/messages`` is
answered by a *script*: a function from the request body to a :class:`Turn` (the content
blocks the model "says" and its stop reason). Streaming requests get server-sent events in
the order the real API sends them; non-streaming requests get one JSON message.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self, cast
from urllib.parse import urlsplit

__all__ = [
    "FakeAnthropic",
    "RecordedRequest",
    "Script",
    "ToolUse",
    "Turn",
    "assistant_turns",
    "bash",
    "message_texts",
    "n_tool_calls",
    "run_tool_then_done",
    "scripted",
    "stream_events",
    "text",
    "tool_calls",
]

JsonObject = dict[str, Any]
MODEL = "claude-sonnet-4-5"
_INPUT_TOKENS = 10
_SOCKET_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class ToolUse:
    """A ``tool_use`` block; ``id`` is assigned (``toolu_fake_0001``...) when left ``None``."""

    name: str
    input: Mapping[str, Any]
    id: str | None = None


@dataclass(frozen=True)
class Turn:
    """One model answer: its content blocks (text or tool use) and its stop reason."""

    blocks: tuple[str | ToolUse, ...]
    stop_reason: str = "end_turn"


Script = Callable[[JsonObject], Turn]


def text(content: str, stop_reason: str = "end_turn") -> Turn:
    """A turn that answers with one text block."""
    return Turn((content,), stop_reason)


def tool_calls(*uses: ToolUse) -> Turn:
    """A turn that asks for the given tool uses (``stop_reason: tool_use``)."""
    return Turn(uses, "tool_use")


def bash(command: str, description: str = "Run a command") -> ToolUse:
    """A ``Bash`` tool use running ``command``."""
    return ToolUse("Bash", {"command": command, "description": description})


def assistant_turns(request: JsonObject) -> int:
    """How many assistant messages the request's conversation already holds."""
    messages = request.get("messages") or []
    return sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant")


def scripted(turns: Sequence[Turn], after: Turn | None = None) -> Script:
    """A script answering the n-th model turn of the conversation with ``turns[n]``.

    The turn is chosen by the number of assistant messages already in the request, so a
    retried request gets the same answer. Past the end, and for a side request that offers
    no tools, it answers ``after`` (default: the text "done").
    """
    fallback = after if after is not None else text("done")

    def script(request: JsonObject) -> Turn:
        n = assistant_turns(request)
        return turns[n] if n < len(turns) and request.get("tools") else fallback

    return script


def run_tool_then_done(commands: Sequence[str]) -> Script:
    """One ``Bash`` tool use per command in successive turns, then the text "done"."""
    return scripted([tool_calls(bash(c)) for c in commands])


def n_tool_calls(n: int) -> Script:
    """``n`` successive ``Bash`` tool uses (``echo 0`` .. ``echo n-1``), then "done"."""
    return run_tool_then_done([f"echo {i}" for i in range(n)])


def _content_texts(content: Any) -> Iterator[str]:
    match content:
        case str():
            yield content
        case list():
            for block in content:
                if isinstance(block, dict):
                    yield from _content_texts(block.get("text", block.get("content")))


def message_texts(request: JsonObject, role: str | None = None) -> list[str]:
    """Every text in the request's messages (text blocks and tool results), in order."""
    messages = request.get("messages") or []
    return [
        t
        for m in messages
        if isinstance(m, dict) and role in (None, m.get("role"))
        for t in _content_texts(m.get("content"))
    ]


@dataclass(frozen=True)
class RecordedRequest:
    """One HTTP request the fake received."""

    method: str
    path: str
    query: str
    headers: Mapping[str, str]
    body: JsonObject | None


@dataclass
class _Ids:
    """Thread-safe counters for message and tool-use ids."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    counters: dict[str, Iterator[int]] = field(default_factory=dict)

    def next(self, prefix: str) -> str:
        with self.lock:
            counter = self.counters.setdefault(prefix, itertools.count(1))
            return f"{prefix}_{next(counter):04d}"

    def message(self) -> str:
        return self.next("msg_fake")

    def tool(self) -> str:
        return self.next("toolu_fake")


def _block_json(block: str | ToolUse, ids: _Ids) -> JsonObject:
    match block:
        case str():
            return {"type": "text", "text": block}
        case ToolUse(name=name, input=args, id=given):
            return {"type": "tool_use", "id": given or ids.tool(), "name": name, "input": args}


def _message(turn: Turn, model: str, ids: _Ids) -> JsonObject:
    return {
        "id": ids.message(),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [_block_json(b, ids) for b in turn.blocks],
        "stop_reason": turn.stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": _INPUT_TOKENS, "output_tokens": 10},
    }


def _event(kind: str, **fields: Any) -> bytes:
    """One server-sent event; its ``type`` field repeats the event name, as the API does."""
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **fields})}\n\n".encode()


def _deltas(block: JsonObject) -> tuple[JsonObject, list[JsonObject]]:
    """The empty start form of a content block and the deltas that fill it in."""
    if block["type"] == "text":
        return {"type": "text", "text": ""}, [{"type": "text_delta", "text": block["text"]}]
    raw = json.dumps(block["input"])
    half = len(raw) // 2
    parts = (raw[:half], raw[half:])
    return {**block, "input": {}}, [{"type": "input_json_delta", "partial_json": p} for p in parts]


def stream_events(message: JsonObject) -> bytes:
    """The whole server-sent-event body for ``message``, in the real API's order."""
    usage = {"input_tokens": _INPUT_TOKENS, "output_tokens": 1}
    head = {**message, "content": [], "stop_reason": None, "usage": usage}
    parts = [_event("message_start", message=head), _event("ping")]
    for index, block in enumerate(message["content"]):
        start, deltas = _deltas(block)
        parts.append(_event("content_block_start", index=index, content_block=start))
        parts += [_event("content_block_delta", index=index, delta=d) for d in deltas]
        parts.append(_event("content_block_stop", index=index))
    stop = {"stop_reason": message["stop_reason"], "stop_sequence": None}
    output = {"output_tokens": message["usage"]["output_tokens"]}
    parts.append(_event("message_delta", delta=stop, usage=output))
    parts.append(_event("message_stop"))
    return b"".join(parts)


def _error_body(kind: str, message: str) -> JsonObject:
    return {"type": "error", "error": {"type": kind, "message": message}}


class FakeAnthropic:
    """The fake API server; a context manager that serves it from a daemon thread.

    ``base_url`` is valid inside the ``with`` block. ``requests`` lists every request
    received; ``message_requests`` the bodies of the ``POST /v1/messages`` among them.
    """

    def __init__(self, script: Script | Sequence[Turn], *, overloaded: int = 0) -> None:
        self.script: Script = script if callable(script) else scripted(script)
        self.overloaded = overloaded  # the first N messages requests get a 529
        self.ids = _Ids()
        self._lock = threading.Lock()
        self._errors: list[str] = []
        self._requests: list[RecordedRequest] = []
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("FakeAnthropic is not running")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def message_requests(self) -> list[JsonObject]:
        return [r.body for r in self.requests if _is_messages(r) and r.body is not None]

    @property
    def errors(self) -> list[str]:
        """Exceptions the script raised (each answered with a 400 error)."""
        with self._lock:
            return list(self._errors)

    def record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def record_error(self, error: str) -> None:
        with self._lock:
            self._errors.append(error)

    def take_overload(self) -> bool:
        """Whether this messages request is one of the first ``overloaded`` (answered 529)."""
        with self._lock:
            if self.overloaded <= 0:
                return False
            self.overloaded -= 1
            return True

    def answer(self, body: JsonObject) -> JsonObject:
        """Run the script on a messages request and build the full response message."""
        return _message(self.script(body), str(body.get("model") or MODEL), self.ids)

    def __enter__(self) -> Self:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.app = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None


def _is_messages(request: RecordedRequest) -> bool:
    return request.method == "POST" and request.path == "/v1/messages"


def _read_body(handler: BaseHTTPRequestHandler) -> bytes:
    """The request body, with a Content-Length or chunked transfer encoding."""
    if "chunked" not in (handler.headers.get("Transfer-Encoding") or "").lower():
        return handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
    chunks: list[bytes] = []
    while size := int(handler.rfile.readline().split(b";")[0].strip() or b"0", 16):
        chunks.append(handler.rfile.read(size))
        handler.rfile.readline()
    while handler.rfile.readline().strip():  # trailers
        pass
    return b"".join(chunks)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    app: FakeAnthropic


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = _SOCKET_TIMEOUT_S

    @property
    def app(self) -> FakeAnthropic:
        return cast(_Server, self.server).app

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the default per-request line on stderr."""

    def do_POST(self) -> None:
        parts = urlsplit(self.path)
        body = self._read_json()
        self.app.record(RecordedRequest("POST", parts.path, parts.query, dict(self.headers), body))
        match parts.path:
            case "/v1/messages":
                self._messages(body or {})
            case "/v1/messages/count_tokens":
                self._send_json(200, {"input_tokens": _INPUT_TOKENS})
            case _:
                self._send_json(404, _error_body("not_found_error", f"no route {parts.path}"))

    def do_GET(self) -> None:
        self._probe(send_body=True)

    def do_HEAD(self) -> None:
        self._probe(send_body=False)

    def _probe(self, *, send_body: bool) -> None:
        parts = urlsplit(self.path)
        headers = dict(self.headers)
        self.app.record(RecordedRequest(self.command, parts.path, parts.query, headers, None))
        self._send(200, "application/json", b"{}" if send_body else b"", length=2)

    def _messages(self, body: JsonObject) -> None:
        if self.app.take_overload():
            self._send_json(529, _error_body("overloaded_error", "Overloaded"))
            return
        try:
            message = self.app.answer(body)
        except Exception as exc:  # a broken script must answer, not hang the CLI
            self.app.record_error(repr(exc))
            self._send_json(400, _error_body("invalid_request_error", f"fake script: {exc!r}"))
            return
        if body.get("stream"):
            self._send(200, "text/event-stream", stream_events(message))
        else:
            self._send_json(200, message)

    def _read_json(self) -> JsonObject | None:
        raw = _read_body(self)
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            return None
        return parsed if isinstance(parsed, dict) else None

    def _send_json(self, status: int, payload: JsonObject) -> None:
        self._send(status, "application/json", json.dumps(payload).encode())

    def _send(self, status: int, content_type: str, data: bytes, length: int | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data) if length is None else length))
        self.send_header("request-id", self.app.ids.next("req_fake"))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()
        self.close_connection = True
