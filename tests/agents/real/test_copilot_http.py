"""Why hookd gives Copilot CLI a command hook (the shim) and not an ``http`` one: the real CLI
(pinned ``@github/copilot``, offline against a fake Chat Completions server) with a
``preToolUse`` http hook at a local server of this test (``COPILOT_HOOK_ALLOW_LOCALHOST=1``).

Copilot denies the call when the connection is refused or the answer is not 2xx, but runs the
tool when the hook times out or answers 200 with a body that is not JSON (what the daemon's
``/agent/`` route says when it could not check a call). The shim turns both into exit 2, which
Copilot obeys. Should a later Copilot deny on these too, these tests fail: weigh http again.
"""

from __future__ import annotations

import json
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.daemon.support import Box
from tests.support.agent_clis import agent_cli, shared_cache
from tests.support.fake_chat import FakeChat

#: The hook's ``timeoutSec``; a stalled answer waits past it.
TIMEOUT_S = 1
STALL_S = TIMEOUT_S + 2
ERRORED = 'Denied by preToolUse hook from ".github/hooks/http.json" (hook errored)'


class _Guard(BaseHTTPRequestHandler):
    """Answers each POST by a word in the tool call's command: ``stall``, ``text``, ``error``."""

    protocol_version = "HTTP/1.1"
    posts: list[dict[str, Any]]

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        payload = json.loads(self.rfile.read(int(self.headers["content-length"])))
        self.posts.append(payload)
        command = payload["toolArgs"]["command"]
        status, body = 200, b"hookd could not check this Copilot CLI call: no answer"
        if "stall" in command:
            time.sleep(STALL_S)
        elif "error" in command:
            status = 503
        try:
            self.send_response(status)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except OSError:  # Copilot gave up waiting and hung up
            pass


@contextmanager
def _server() -> Iterator[tuple[int, list[dict[str, Any]]]]:
    posts: list[dict[str, Any]] = []
    handler = type("Guard", (_Guard,), {"posts": posts})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1], posts
    finally:
        server.shutdown()
        server.server_close()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _copilot(box: Box, port: int, commands: list[str]) -> list[str]:
    """One ``copilot -p`` session with the http hook at ``port``; the tool results it sent."""
    hooks = {"version": 1, "hooks": {"preToolUse": [{
        "type": "http", "url": f"http://127.0.0.1:{port}/agent/copilot/preToolUse",
        "timeoutSec": TIMEOUT_S}]}}  # fmt: skip
    config = box.project / ".github" / "hooks" / "http.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps(hooks))
    with FakeChat(commands) as fake, shared_cache("copilot-xdg-cache") as cache:
        env = {
            **box.env(),
            "COPILOT_HOOK_ALLOW_LOCALHOST": "1",  # else an http:// preToolUse hook is skipped
            "COPILOT_OFFLINE": "true",
            "COPILOT_PROVIDER_BASE_URL": fake.base_url,
            "COPILOT_PROVIDER_TYPE": "openai",
            "COPILOT_PROVIDER_API_KEY": "fake-key-0123",
            "COPILOT_MODEL": "fake-model",
            "COPILOT_ALLOW_ALL": "true",
            "COPILOT_AUTO_UPDATE": "false",
            "XDG_CACHE_HOME": str(cache),
        }
        argv = [str(agent_cli("copilot")), "-p", "run the commands", "--output-format", "json"]
        done = subprocess.run(
            argv, cwd=box.project, env=env, stdin=subprocess.DEVNULL, capture_output=True,
            text=True, timeout=120, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        return fake.tool_results()


def test_an_http_pre_tool_use_hook_fails_open_on_a_timeout_or_a_body_not_json(
    tmp_path: Path,
) -> None:
    box = Box(tmp_path)
    made = {word: tmp_path / f"{word}.txt" for word in ("stall", "text", "error")}
    with _server() as (port, posts):
        results = _copilot(box, port, [f"echo {w} > {path}" for w, path in made.items()])
    assert len(posts) == 3 and posts[0]["toolName"] == "bash"
    assert made["stall"].exists() and made["text"].exists()  # the tool ran: open
    assert all("completed with exit code 0" in r for r in results[:2])
    assert not made["error"].exists()  # a 503: closed
    assert results[2] == ERRORED


def test_an_http_pre_tool_use_hook_fails_closed_on_a_refused_connection(tmp_path: Path) -> None:
    box = Box(tmp_path)
    made = tmp_path / "refused.txt"
    results = _copilot(box, _closed_port(), [f"echo refused > {made}"])
    assert not made.exists()
    assert results == [ERRORED]
