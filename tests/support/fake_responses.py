"""A scripted fake of the OpenAI Responses API, served on 127.0.0.1 from a thread.

Codex is pointed at it by a model provider whose ``base_url`` is :attr:`FakeResponses.base_url`
(``wire_api = "responses"``). Each ``POST /v1/responses`` is answered by a *script*: a function
from the request body to a :class:`Turn` (the output items the model "says"), streamed as the
server-sent events Codex reads: ``response.created``, one ``response.output_item.done`` per item,
``response.completed``. Every request is kept: the tool results the client sends back
(``function_call_output`` items) are where a hook's denial reason shows up.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Final, Self, cast

__all__ = [
    "SHELL_TOOLS",
    "FakeResponses",
    "FunctionCall",
    "Script",
    "Turn",
    "shell_call",
    "shell_then_done",
    "tool_outputs",
]

JsonObject = dict[str, Any]
_SOCKET_TIMEOUT_S = 30.0
_USAGE: Final = {"input_tokens": 10, "output_tokens": 1, "total_tokens": 11}

#: The shell tools a Responses client may offer, by name, and how each takes one command line.
SHELL_TOOLS: Mapping[str, Callable[[str], JsonObject]] = {
    "exec_command": lambda cmd: {"cmd": cmd},  # Codex 0.169 (unified exec)
    "shell_command": lambda cmd: {"command": cmd},
    "shell": lambda cmd: {"command": ["bash", "-lc", cmd]},
}


@dataclass(frozen=True)
class FunctionCall:
    """A ``function_call`` output item; ``call_id`` is assigned (``call_1``...) when ``None``."""

    name: str
    arguments: Mapping[str, Any]
    call_id: str | None = None


@dataclass(frozen=True)
class Turn:
    """One model answer: its output items, each a text message or a function call."""

    items: tuple[str | FunctionCall, ...]


Script = Callable[[JsonObject], Turn]


def _offered(request: JsonObject) -> list[str]:
    tools = request.get("tools") or []
    return [t["name"] for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)]


def shell_call(request: JsonObject, command: str) -> FunctionCall:
    """A call of the shell tool ``request`` offers, in that tool's own argument shape."""
    for name in _offered(request):
        if name in SHELL_TOOLS:
            return FunctionCall(name, SHELL_TOOLS[name](command))
    raise LookupError(f"the client offered no shell tool: {_offered(request)}")


def tool_outputs(request: JsonObject) -> dict[str, str]:
    """The tool results in a request's input, by call id (text parts joined)."""
    found: dict[str, str] = {}
    for item in request.get("input") or []:
        if isinstance(item, dict) and item.get("type") == "function_call_output":
            output = item.get("output")
            if isinstance(output, list):  # content parts
                output = "".join(str(p.get("text", "")) for p in output if isinstance(p, dict))
            found[str(item.get("call_id"))] = str(output)
    return found


def shell_then_done(commands: Sequence[str], final: str = "done") -> Script:
    """One shell call per command in successive turns, then the message ``final``.

    The turn is chosen by the number of tool results the request already holds, so a
    retried request gets the same answer.
    """

    def script(request: JsonObject) -> Turn:
        n = len(tool_outputs(request))
        return Turn((shell_call(request, commands[n]),)) if n < len(commands) else Turn((final,))

    return script


def _event(kind: str, **fields: Any) -> bytes:
    """One server-sent event; its ``type`` field repeats the event name, as the API does."""
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **fields})}\n\n".encode()


class FakeResponses:
    """The fake API server; a context manager that serves it from a daemon thread."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._requests: list[JsonObject] = []
        self._errors: list[str] = []
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """The provider's ``base_url`` (ends in ``/v1``)."""
        if self._server is None:
            raise RuntimeError("FakeResponses is not running")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    @property
    def requests(self) -> list[JsonObject]:
        """The bodies of the ``POST /v1/responses`` received, in order."""
        with self._lock:
            return list(self._requests)

    @property
    def errors(self) -> list[str]:
        """Exceptions the script raised (each answered with a 400 error)."""
        with self._lock:
            return list(self._errors)

    def tool_outputs(self) -> dict[str, str]:
        """Every tool result the client sent back, by call id."""
        return {k: v for r in self.requests for k, v in tool_outputs(r).items()}

    def answer(self, body: JsonObject) -> bytes:
        """Record a request and stream its turn."""
        with self._lock:
            self._requests.append(body)
            n = next(self._ids)
        try:
            turn = self.script(body)
        except Exception as exc:  # a broken script must answer, not hang the client
            with self._lock:
                self._errors.append(repr(exc))
            raise
        response = {"id": f"resp_{n}", "object": "response", "model": body.get("model")}
        items = [self._item(item, n, i) for i, item in enumerate(turn.items)]
        done = [_event("response.output_item.done", output_index=i, item=item)
                for i, item in enumerate(items)]  # fmt: skip
        created = _event("response.created", response=response)
        completed = _event("response.completed", response={**response, "usage": _USAGE})
        return b"".join([created, *done, completed])

    @staticmethod
    def _item(item: str | FunctionCall, n: int, index: int) -> JsonObject:
        if isinstance(item, str):
            content = [{"type": "output_text", "text": item, "annotations": []}]
            return {"type": "message", "id": f"msg_{n}_{index}", "role": "assistant",
                    "status": "completed", "content": content}  # fmt: skip
        return {"type": "function_call", "id": f"fc_{n}_{index}", "status": "completed",
                "call_id": item.call_id or f"call_{n}_{index}", "name": item.name,
                "arguments": json.dumps(item.arguments)}  # fmt: skip

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
        self._server = self._thread = None


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    app: FakeResponses


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = _SOCKET_TIMEOUT_S

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the default per-request line on stderr."""

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path.split("?")[0] != "/v1/responses":
            self._send(404, "application/json", b'{"error": {"message": "no such route"}}')
            return
        try:
            body = json.loads(raw)
            stream = cast(_Server, self.server).app.answer(body)
        except Exception as exc:
            error = json.dumps({"error": {"message": f"fake script: {exc!r}"}}).encode()
            self._send(400, "application/json", error)
            return
        self._send(200, "text/event-stream", stream)

    def do_GET(self) -> None:
        self._send(404, "application/json", b'{"error": {"message": "no such route"}}')

    def _send(self, status: int, content_type: str, data: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True
