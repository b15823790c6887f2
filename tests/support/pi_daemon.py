"""A stand-in hookd daemon for hookd's plugins (``hookd-pi.ts``, ``hookd-opencode.ts``): the
real ``/agent/<agent>/<event>`` answers, proven as the daemon is, with answers a test chooses.

:class:`StandIn` serves ``POST /agent/<agent>/<event>`` from a thread of the test process with
hookd's own route code (:class:`hookd.serve.http.agent_answer.AgentAnswers`) answering through
the agent's registered dialect, with the hooks of a module loaded by the testing kit. It writes
what the daemon writes for a plugin to find it: a ready file naming the test process (its pid,
its start time from /proc, the port), 0600 in a 0700 folder, and a token file; a request
without ``Bearer <token>`` gets 401. (The real daemon, started by the plugin itself, is in
tests/agents/real/test_opencode.py and test_pi.py.)

``answer`` may replace the route for one test: a function of (event, body) giving
(status, headers, body), or ``"hang"`` (accepts, never answers).
"""

from __future__ import annotations

import json
import os
import secrets
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import trio

from hookd.agents import opencode, pi
from hookd.serve.http.agent_answer import AgentAnswers
from hookd.testing import load

__all__ = ["Raw", "StandIn", "engine_of", "proc_start_ticks", "stand_in"]

Raw = tuple[int, dict[str, str], bytes]


def proc_start_ticks(pid: int | str = "self") -> int:
    """Field 22 of ``/proc/PID/stat``: when the process started, in clock ticks after boot."""
    stat = Path(f"/proc/{pid}/stat").read_bytes()
    return int(stat.rsplit(b")", 1)[1].split()[19])


def engine_of(hooks: Any) -> Any:
    """The testing kit's request handler: ``hooks.kernel`` since the engine's split, before it
    ``hooks.handler`` (the route takes it either way)."""
    return hooks.kernel if hasattr(hooks, "kernel") else hooks.handler


@dataclass
class StandIn:
    """The stand-in's files, port and what it received."""

    folder: Path
    module: Path
    port: int = 0
    token: str = field(default_factory=lambda: secrets.token_hex(16))
    received: list[tuple[str, dict[str, Any], dict[str, str]]] = field(default_factory=list)
    answer: Callable[[str, bytes], Raw] | str | None = None

    @property
    def ready_file(self) -> Path:
        return self.folder / "run" / "hooks.json"

    @property
    def token_file(self) -> Path:
        return self.folder / "state" / "token"

    def write_files(self, *, pid: int | None = None, ticks: int | None = None) -> None:
        """The ready file as the daemon writes it (naming this process unless told otherwise)
        and the token file."""
        run = self.ready_file.parent
        run.mkdir(mode=0o700, parents=True, exist_ok=True)
        pid = os.getpid() if pid is None else pid
        fields = {"pid": pid, "start_ticks": proc_start_ticks(pid) if ticks is None else ticks,
                  "host": "127.0.0.1", "port": self.port, "module": str(self.module)}  # fmt: skip
        self.ready_file.write_text(json.dumps(fields))
        self.ready_file.chmod(0o600)
        self.token_file.parent.mkdir(parents=True, exist_ok=True)
        self.token_file.write_text(self.token + "\n")
        self.token_file.chmod(0o600)

    def events(self) -> list[str]:
        return [event for event, _, _ in self.received]

    def extension(self, **settings: Any) -> str:
        """``hookd-pi.ts`` naming this stand-in (no ``hookd up``: it cannot start one)."""
        return pi.extension_source(
            port=self.port, token_file=str(self.token_file), ready_file=str(self.ready_file),
            **settings,
        )  # fmt: skip

    def plugin(self, agent: str, **settings: Any) -> str:
        """``hookd-opencode.ts`` for ``agent`` (``""``: its folder tells) naming this stand-in."""
        return opencode.plugin_source(
            agent, port=self.port, token_file=str(self.token_file),
            ready_file=str(self.ready_file), **settings,
        )  # fmt: skip


@contextmanager
def stand_in(folder: Path, module: Path) -> Iterator[StandIn]:
    """A :class:`StandIn` serving ``module``'s hooks, its files written."""
    hooks = load(str(module))
    route = AgentAnswers(engine_of(hooks))
    state = StandIn(folder, module)
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            target = self.path.removeprefix("/agent/")
            headers = {k.lower(): v for k, v in self.headers.items()}
            with lock:
                state.received.append((target, json.loads(body or b"{}"), headers))
            if state.answer == "hang":
                threading.Event().wait(60)
                return
            if headers.get("authorization") != f"Bearer {state.token}":
                return self._send(401, {}, b'{"error": "unauthorized"}')
            if callable(state.answer):
                return self._send(*state.answer(target, body))
            with lock:  # one trio run at a time over the shared handler
                got = trio.run(route.post, target, body)
            self._send(got.status, {k.decode(): v.decode() for k, v in got.headers}, got.body)

        def _send(self, status: int, headers: dict[str, str], body: bytes) -> None:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)
            self.close_connection = True

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.port = server.server_address[1]
    state.write_files()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
