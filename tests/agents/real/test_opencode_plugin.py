"""hookd's plugin (hookd/agents/plugins/hookd-opencode.ts) in the real OpenCode and Kilo CLI,
offline, against a stand-in for the daemon's agent route.

The ``opencode`` dialect is not registered in the daemon yet (phase A), so the daemon here is
this test process: it writes a ready file naming its own pid, start time and port and a token
file, as ``hookd up`` does, and answers ``POST /agent/AGENT/EVENT`` as the route does (the
dialect decodes the body, a kernel with tests/hooks/agent_guard.py loaded answers it, the
dialect encodes the verdict: status 200, ``x-hookd-exit``, the body). The plugin proves the
listener by the ready file and /proc before it sends the token, exactly as it would the daemon.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import trio

from hookd.agents.opencode import DIALECT, KILO, render_plugin
from hookd.daemon.where import start_ticks
from hookd.engine.call import HookCall
from hookd.testing import Hooks, load
from tests.daemon.support import Box
from tests.support.opencode_drive import Call, Step, drive, write_plugin

pytestmark = pytest.mark.real_cli

ROOT = Path(__file__).resolve().parents[3]
GUARD = str(ROOT / "tests" / "hooks" / "agent_guard.py")
TOKEN = "t0k3n-0123456789abcdef"
EVENTS = ("tool.execute.before", "tool.execute.after", "chat.message", "session.created",
          "session.idle")  # fmt: skip


@dataclass
class Route:
    """What the stand-in daemon saw: each request's path, its token, its body."""

    hooks: Hooks
    token_file: Path
    seen: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, path: str, auth: str, raw: bytes) -> tuple[int, int, bytes]:
        """(status, exit code, body) as ``POST /agent/AGENT/EVENT`` gives them."""
        body = json.loads(raw)
        with self.lock:
            self.seen.append((path, auth, body))
        if auth != f"Bearer {self.token_file.read_text().strip()}":  # renewed at each start
            return 401, 0, b'{"error": "unauthorized"}'
        _, _, agent, event = path.split("/", 3)
        dialect = DIALECT if agent == "opencode" else KILO
        call = dialect.decode(event, body)
        if not isinstance(call, HookCall):
            return 200, 0, b""
        with self.lock:
            verdict = trio.run(self.hooks.kernel.handle, call)
        assert verdict is not None
        encoded = dialect.encode(verdict, call)
        text = encoded.stdout if encoded.exit_code == 0 else encoded.stderr.encode()
        return 200, encoded.exit_code, text


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        route: Route = self.server.route  # type: ignore[attr-defined]
        status, code, text = route.answer(self.path, self.headers.get("Authorization", ""), raw)
        self.send_response(status)
        self.send_header("x-hookd-exit", str(code))
        self.send_header("Content-Length", str(len(text)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(text)
        self.close_connection = True


@dataclass
class Daemon:
    route: Route
    port: int
    ready: Path
    token: Path


@contextmanager
def daemon(box: Box) -> Iterator[Daemon]:
    """The stand-in daemon: listening, then its ready file (0600, in the 0700 runtime folder)
    and token file written; the ready file removed before the port is let go."""
    box.env()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    ready = box.runtime / "hookd" / "guard.json"
    token = box.state / "hookd" / "token"
    route = Route(load(GUARD), token)
    server.route = route  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    port = server.server_address[1]
    for path, text in ((token, TOKEN + "\n"), (ready, json.dumps(
            {"pid": os.getpid(), "start_ticks": start_ticks(os.getpid()), "host": "127.0.0.1",
             "port": port}))):  # fmt: skip
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(0o600)
    try:
        yield Daemon(route, port, ready, token)
    finally:
        ready.unlink(missing_ok=True)
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def install(box: Box, agent: str, d: Daemon, **settings: Any) -> Path:
    """The plugin with its settings filled, in the agent's project plugin folder."""
    values = {"AGENT": agent, "PORT": d.port, "TOKEN_FILE": str(d.token),
              "READY_FILE": str(d.ready), "EVENTS": EVENTS, "DEADLINE_S": 10,
              **settings}  # fmt: skip
    return write_plugin(box, agent, "hookd-opencode.ts", render_plugin(**values))


def victim(box: Box) -> Path:
    kept = box.project / "victim_dir" / "precious.txt"
    kept.parent.mkdir(parents=True)
    kept.write_text("still here\n")
    return kept


@pytest.mark.parametrize("agent", ["opencode", "kilo"])
def test_the_plugin_asks_the_daemon_and_obeys(tmp_path: Path, agent: str) -> None:
    box = Box(tmp_path)
    with daemon(box) as d:
        install(box, agent, d, AGENT="")  # the plugin folder tells which CLI it serves
        kept = victim(box)
        new = box.project / "new.txt"
        steps: list[Step] = [
            "rm -rf victim_dir", "python -c pass; echo ran > ran.txt", "git status",
            Call("write", {"filePath": str(new), "content": "hello\n"}),
        ]  # fmt: skip
        run = drive(box, agent, steps, auto=True)  # Kilo CLI would ask for python3 (rejected)
    assert run.exit_code == 0, run.stderr[-2000:]
    assert kept.read_text() == "still here\n"
    denied, _rewritten, git, wrote = run.tool_results
    assert denied == "no recursive deletes"
    assert (box.project / "ran.txt").read_text() == "ran\n"  # python3 -c pass; echo ran ...
    assert "the main branch is protected" in git  # a PreToolUse context, after the output
    assert wrote.startswith("Wrote file")
    assert new.read_text() == "hello\n"
    paths = [path for path, _, _ in d.route.seen]
    assert {f"/agent/{agent}/session.created", f"/agent/{agent}/chat.message"} <= set(paths)
    # session.idle is posted too, but `run` may exit before its answer (seen in Kilo CLI): the
    # CLI does not wait for the event hook
    before = [b for p, _, b in d.route.seen if p.endswith("/tool.execute.before")]
    assert [b["tool_name"] for b in before] == ["bash", "bash", "bash", "write"]
    assert before[0]["tool_input"] == {"command": "rm -rf victim_dir"}
    assert before[0]["cwd"] == str(box.project) and before[0]["agent"] == agent
    assert before[0]["session_id"].startswith("ses_") and before[0]["tool_use_id"]
    assert all(auth == f"Bearer {TOKEN}" for _, auth, _ in d.route.seen)
    prompts = [r for r in run.requests if r.get("tools")]
    user = [m for m in prompts[0]["messages"] if m.get("role") == "user"]
    assert "run the tests first" in json.dumps(user)  # the prompt's context, a text part


def test_no_daemon_fails_closed_and_a_stale_ready_file_gets_no_token(tmp_path: Path) -> None:
    box = Box(tmp_path)
    with daemon(box) as d:
        install(
            box,
            "opencode",
            d,
            HOOKD="/bin/false",
            MODULE=str(tmp_path / "gone.py"),
            EVENTS=["tool.execute.before"],
        )  # a prompt refused would end the run first
        ready = json.loads(d.ready.read_text())
        d.ready.write_text(json.dumps({**ready, "start_ticks": ready["start_ticks"] + 1}))
        kept = victim(box)
        run = drive(box, "opencode", ["rm -rf victim_dir"])
        seen = list(d.route.seen)
    assert kept.read_text() == "still here\n"
    assert seen == []  # a ready file whose process started at another time is not the daemon
    (result,) = run.tool_results
    assert result.startswith("hookd: the hookd daemon is not running on 127.0.0.1:")
    assert "did not start" in result


def test_fail_open_lets_the_call_run_without_a_daemon(tmp_path: Path) -> None:
    box = Box(tmp_path)
    with daemon(box) as d:
        install(box, "opencode", d, FAIL_OPEN=True, EVENTS=["tool.execute.before"])
    (box.project / "victim_dir").mkdir()
    run = drive(box, "opencode", ["rm -rf victim_dir"])
    assert not (box.project / "victim_dir").exists()
    assert run.exit_code == 0


def test_a_daemon_not_proven_is_started_with_hookd_up(tmp_path: Path) -> None:
    """``HOOKD up MODULE --port PORT --quiet`` runs once; its ready file and its new token are
    read after it (here a script stands in for hookd: it puts back the daemon's ready file)."""
    box = Box(tmp_path)
    with daemon(box) as d:
        good = d.ready.read_text()
        d.ready.unlink()  # as after the daemon's idle exit
        argv = tmp_path / "argv.txt"
        hookd = tmp_path / "hookd"
        hookd.write_text(f"#!/bin/sh\necho \"$@\" >> {argv}\nprintf %s '{good}' > {d.ready}\n"
                         f"echo renewed-token-0123456789 > {d.token}\n")  # fmt: skip
        hookd.chmod(0o755)
        module = tmp_path / "guard.py"
        install(box, "opencode", d, HOOKD=str(hookd), MODULE=str(module),
                EVENTS=["tool.execute.before"])  # fmt: skip
        kept = victim(box)
        run = drive(box, "opencode", ["rm -rf victim_dir", "echo ok > harmless.txt"])
        seen = list(d.route.seen)
    assert kept.read_text() == "still here\n"
    assert run.tool_results == ["no recursive deletes", "(no output)"]
    assert argv.read_text() == f"up {module} --port {d.port} --quiet\n"  # once, then proven
    assert [auth for _, auth, _ in seen] == ["Bearer renewed-token-0123456789"] * 2
