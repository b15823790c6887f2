"""A scripted fake of the OpenAI Chat Completions API, served on 127.0.0.1 from a thread.

Copilot CLI (``COPILOT_PROVIDER_TYPE=openai``) and Qwen Code (``OPENAI_BASE_URL``) are pointed
at it. Each ``POST .../chat/completions`` is answered from a list of shell commands: while the
conversation holds fewer assistant messages than commands, the answer calls the client's own
shell tool (found in the ``tools`` the request offers: Copilot's ``bash``, Qwen's
``run_shell_command``) with the next command, its arguments filled in from the tool's schema;
after that, and for any request that offers no tools, a final text. Streamed requests get
server-sent chunks ending in ``data: [DONE]``; the others one JSON completion. Every request is
recorded: the tool results the client sends back are where a hook's denial reason shows up.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self, cast

__all__ = ["SHELL_TOOLS", "FakeChat", "JsonObject", "shell_arguments", "shell_tool"]

JsonObject = dict[str, Any]
#: The shell tools this fake knows by name, in the order it looks for them.
SHELL_TOOLS = ("bash", "run_shell_command", "shell", "Bash")
FINAL_TEXT = "done"
_SOCKET_TIMEOUT_S = 30.0
_USAGE = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


def shell_tool(request: JsonObject) -> JsonObject | None:
    """The ``function`` of the request's shell tool (None when it offers none)."""
    offered = {
        tool["function"]["name"]: tool["function"]
        for tool in request.get("tools") or []
        if isinstance(tool, dict) and isinstance(tool.get("function"), dict)
    }
    return next((offered[name] for name in SHELL_TOOLS if name in offered), None)


def _filler(name: str, schema: JsonObject) -> Any:
    """A plausible value for a required argument other than the command."""
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind in ("integer", "number"):
        return 30
    if kind == "boolean":
        return False
    return f"fake {name}"


def shell_arguments(function: JsonObject, command: str) -> JsonObject:
    """Arguments for the shell tool ``function``: ``command`` plus its other required ones."""
    params = function.get("parameters") or {}
    props: JsonObject = params.get("properties") or {}
    args: JsonObject = {"command": command}
    for name in params.get("required") or []:
        if name not in args:
            args[name] = _filler(name, props.get(name) or {})
    return args


def assistant_turns(request: JsonObject) -> int:
    """How many assistant messages the request's conversation already holds."""
    return sum(1 for m in request.get("messages") or [] if m.get("role") == "assistant")


def _texts(content: Any) -> Iterator[str]:
    if isinstance(content, str):
        yield content
    elif isinstance(content, list):
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                yield part["text"]


@dataclass(frozen=True)
class Answer:
    """One model answer: a shell tool call (name and arguments) or a text."""

    text: str = ""
    tool: str | None = None
    arguments: JsonObject | None = None


class FakeChat:
    """The fake server; a context manager serving it from a daemon thread.

    ``commands`` are run one per model turn through the client's shell tool, then the model
    says ``done``. ``on_request``, when given, is called with each request's body before it is
    answered (to change the world between the client's hooks). ``base_url`` (ending in
    ``/v1``) is valid inside the ``with`` block.
    """

    def __init__(
        self, commands: Sequence[str], on_request: Callable[[JsonObject], None] | None = None
    ) -> None:
        self.commands = list(commands)
        self.on_request = on_request
        self._lock = threading.Lock()
        self._requests: list[JsonObject] = []
        self._ids = itertools.count(1)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("FakeChat is not running")
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    @property
    def requests(self) -> list[JsonObject]:
        """The bodies of the chat completion requests received, in order."""
        with self._lock:
            return list(self._requests)

    def tool_results(self) -> list[str]:
        """The text of every distinct tool result the client sent back, in order."""
        seen: dict[str, str] = {}
        for request in self.requests:
            for message in request.get("messages") or []:
                if message.get("role") == "tool":
                    key = str(message.get("tool_call_id"))
                    seen.setdefault(key, "".join(_texts(message.get("content"))))
        return list(seen.values())

    def tool_names(self) -> list[str]:
        """The names of the tools offered in the first request that offered any."""
        offered: list[JsonObject] = next((r["tools"] for r in self.requests if r.get("tools")), [])
        return [t["function"]["name"] for t in offered if isinstance(t.get("function"), dict)]

    def answer(self, request: JsonObject) -> Answer:
        with self._lock:
            self._requests.append(request)
        if self.on_request is not None:
            self.on_request(request)
        turn, function = assistant_turns(request), shell_tool(request)
        if function is None or turn >= len(self.commands):
            return Answer(FINAL_TEXT)
        arguments = shell_arguments(function, self.commands[turn])
        return Answer(tool=function["name"], arguments=arguments)

    def completion(self, answer: Answer, model: str) -> JsonObject:
        """The non-streamed completion for ``answer``."""
        message: JsonObject = {"role": "assistant", "content": answer.text or None}
        finish = "stop"
        if answer.tool is not None:
            message["tool_calls"] = [self._call(answer)]
            finish = "tool_calls"
        return {**self._head(model, "chat.completion"), "usage": _USAGE,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}]}  # fmt: skip

    def chunks(self, answer: Answer, model: str) -> bytes:
        """The server-sent chunks for ``answer``, ending in ``[DONE]``."""
        head = self._head(model, "chat.completion.chunk")
        deltas: list[JsonObject] = [{"role": "assistant", "content": ""}]
        if answer.tool is not None:
            deltas.append({"tool_calls": [{"index": 0, **self._call(answer)}]})
        else:
            deltas.append({"content": answer.text})
        finish = "stop" if answer.tool is None else "tool_calls"
        events = [{**head, "choices": [{"index": 0, "delta": d, "finish_reason": None}]}
                  for d in deltas]  # fmt: skip
        events.append({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
        events.append({**head, "choices": [], "usage": _USAGE})
        lines = [f"data: {json.dumps(event)}\n\n" for event in events]
        return ("".join(lines) + "data: [DONE]\n\n").encode()

    def _head(self, model: str, kind: str) -> JsonObject:
        return {"id": f"chatcmpl-fake-{next(self._ids)}", "object": kind, "created": 1,
                "model": model}  # fmt: skip

    def _call(self, answer: Answer) -> JsonObject:
        arguments = json.dumps(answer.arguments)
        function = {"name": answer.tool, "arguments": arguments}
        return {"id": f"call_fake_{next(self._ids)}", "type": "function", "function": function}

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
    app: FakeChat


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = _SOCKET_TIMEOUT_S

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the default per-request line on stderr."""

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if not self.path.endswith("/chat/completions"):
            self._send(404, "application/json", b'{"error": {"message": "no such route"}}')
            return
        request = json.loads(raw or b"{}")
        app = cast(_Server, self.server).app
        answer, model = app.answer(request), str(request.get("model") or "fake-model")
        if request.get("stream"):
            self._send(200, "text/event-stream", app.chunks(answer, model))
        else:
            self._send(200, "application/json", json.dumps(app.completion(answer, model)).encode())

    def do_GET(self) -> None:
        """Model listings: the one fake model."""
        models = {"object": "list", "data": [{"id": "fake-model", "object": "model"}]}
        self._send(200, "application/json", json.dumps(models).encode())

    def _send(self, status: int, content_type: str, data: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()
        self.close_connection = True
