"""One deadline for the whole answer: the agent shim and ``hookd call`` use an answer only when
it is complete (its ``Content-Length`` bytes) within it. A daemon stopped mid-answer, one that
stalls after its head, and one that drips a byte at a time (each read quick, the whole too
slow) all fail a blocking event closed, soon after the deadline."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import json
import os
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import trio

from hookd.agents import SHIM
from hookd.daemon.where import key_file, module_key, ready_file, state_dir, token_file
from tests.agents.shim_support import one_line, start_ticks
from tests.agents.shim_support import ready_file as write_ready
from tests.daemon.support import HOOKD, Box, hookd, read_settings

DEADLINE_S = 1.0
#: What the deadline may be overrun by: starting the process (an interpreter for `hookd call`)
#: and a loaded machine. A drip takes DRIP_S * len(BODY) = 8 s, far past both.
MARGIN_S = 2.5
DRIP_S = 0.02
BODY = json.dumps({"decision": "allow", "note": "x" * 360}).encode()
HOOKS = Path(__file__).resolve().parents[1] / "hooks" / "daemon_guard.py"
PRE = {"session_id": "s1", "transcript_path": "", "cwd": "/tmp", "hook_event_name": "PreToolUse",
       "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "c1"}  # fmt: skip


@dataclass
class Fake:
    """A test-owned daemon: answers ``GET /status`` with the proof, and each post as told."""

    how: str  # whole, short, stall, drip
    key: bytes = b""
    port: int = 0
    posts: list[bytes] = field(default_factory=list)
    dripped: int = 0

    def head(self, request: bytes, length: int) -> bytes:
        lines = ["HTTP/1.1 200 OK", f"content-length: {length}", "x-hookd-exit: 0"]
        for line in request.decode(errors="replace").split("\r\n"):
            name, _, nonce = line.partition(":")
            if name.lower() == "x-hookd-challenge" and self.key:
                message = f"hookd-proof\n{nonce.strip()}\n{os.getpid()}\n{self.port}".encode()
                proof = hmac.new(self.key, message, hashlib.sha256).hexdigest()
                lines.append(f"x-hookd-proof: {proof}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode()

    async def serve(self, stream: trio.SocketStream) -> None:
        request = await _read_request(stream)
        if request.startswith(b"GET /status "):
            body = json.dumps({"pid": os.getpid(), "hooks": []}).encode()
            await stream.send_all(self.head(request, len(body)) + body)
        else:
            self.posts.append(request)
            with contextlib.suppress(trio.BrokenResourceError):  # the client gave up
                await self.answer(stream, request)
        await stream.aclose()

    async def answer(self, stream: trio.SocketStream, request: bytes) -> None:
        if self.how == "whole":
            await stream.send_all(self.head(request, len(BODY)) + BODY)
        elif self.how == "short":  # stopped mid-answer
            await stream.send_all(self.head(request, len(BODY) + 50) + BODY)
        elif self.how == "stall":
            await stream.send_all(self.head(request, len(BODY)))
            await trio.sleep_forever()
        else:
            await stream.send_all(self.head(request, len(BODY)))
            for byte in BODY:
                await stream.send_all(bytes([byte]))
                self.dripped += 1
                await trio.sleep(DRIP_S)


async def _read_request(stream: trio.SocketStream) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data and (piece := await stream.receive_some(65536)):
        data += piece
    head = data.partition(b"\r\n\r\n")[0].lower()
    length = int(head.partition(b"content-length:")[2].split(b"\r\n")[0] or 0)
    while len(data.partition(b"\r\n\r\n")[2]) < length and (
        piece := await stream.receive_some(65536)
    ):
        data += piece
    return data


def _pose(box: Box, module: Path, fake: Fake) -> Path:
    """The box's state names the test process as the module's daemon, on the fake's port."""
    key = module_key(str(module.resolve()))
    own = Path(state_dir(str(box.state / "hookd"), key))
    own.mkdir(parents=True, exist_ok=True)
    fake.key = os.urandom(32).hex().encode()
    Path(key_file(str(own))).write_bytes(fake.key + b"\n")
    Path(token_file(str(own))).write_text("whole-answer-token-" + "0" * 45 + "\n")
    ready = Path(ready_file(str(box.runtime / "hookd"), key))
    ready.parent.mkdir(mode=0o700, exist_ok=True)
    return write_ready(ready, fake.port, os.getpid(), start_ticks())


@dataclass
class Done:
    returncode: int
    stdout: bytes
    stderr: str  # without -X importtime's lines
    imported: set[str]
    elapsed_s: float


async def _ask(client: str, box: Box, module: Path, fake: Fake) -> Done:
    """Run ``client`` against the fake to exit (``hookd call`` under ``-X importtime``)."""
    ready = _pose(box, module, fake)
    (own,) = box.daemon_dirs()
    if client == "shim":
        argv = ["bash", SHIM, str(fake.port), str(own / "token"), "codex/PreToolUse",
                f"{DEADLINE_S:g}", "closed", "", "", str(ready)]  # fmt: skip
    else:
        argv = [sys.executable, "-X", "importtime", HOOKD, "call", "PreToolUse", "--hooks",
                str(module), "--port", str(fake.port), "--deadline", f"{DEADLINE_S:g}"]  # fmt: skip
        argv += ["--no-reload"] if client == "call, full command" else []
    started = trio.current_time()
    with trio.fail_after(30):
        done = await trio.run_process(argv, stdin=json.dumps(PRE).encode(), capture_stdout=True,
                                      capture_stderr=True, env=box.env(), check=False)  # fmt: skip
    elapsed_s = trio.current_time() - started
    lines = done.stderr.decode().splitlines()
    imported = {line.split("|")[-1].strip() for line in lines if line.startswith("import time:")}
    rest = "".join(f"{line}\n" for line in lines if not line.startswith("import time:"))
    return Done(done.returncode, done.stdout, rest, imported, elapsed_s)


CLIENTS = ["shim", "call", "call, full command"]


@pytest.fixture
def module(tmp_path: Path) -> Path:
    target = tmp_path / "project" / ".claude" / "hooks.py"
    target.parent.mkdir(parents=True)
    shutil.copy(HOOKS, target)
    return target


async def _run(how: str, client: str, tmp_path: Path, module: Path) -> tuple[Done, Fake]:
    fake = Fake(how)
    box = Box(tmp_path)
    box.env()
    async with trio.open_nursery() as nursery:
        serve = functools.partial(trio.serve_tcp, fake.serve, 0, host="127.0.0.1")
        listeners = await nursery.start(serve)
        fake.port = listeners[0].socket.getsockname()[1]
        done = await _ask(client, box, module, fake)
        nursery.cancel_scope.cancel()
    if client.startswith("call"):  # the words install writes take the fast path, --deadline too
        assert ("argparse" in done.imported) == (client == "call, full command")
    return done, fake


@pytest.mark.req("R-A56", "R-A57", "R-D66", "R-D67")
@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("how", ["short", "stall", "drip"])
async def test_an_answer_not_whole_within_the_deadline_fails_closed(
    tmp_path: Path, module: Path, how: str, client: str
) -> None:
    done, fake = await _run(how, client, tmp_path, module)
    assert (done.returncode, done.stdout) == (2, b""), done.stderr
    line = one_line(done.stderr)
    if client == "shim":
        expected = {
            "short": f"hookd: the hookd daemon's answer ended after {len(BODY)} of "
            f"{len(BODY) + 50} bytes",
        }.get(how, f"hookd: no whole answer from the hookd daemon within {DEADLINE_S:g}s")
    else:
        where = f"hookd call PreToolUse: blocked: 127.0.0.1:{fake.port}: "
        expected = where + {
            "short": f"the answer ended after {len(BODY)} of {len(BODY) + 50} bytes",
        }.get(how, f"no complete answer within {DEADLINE_S:g}s")
    assert line == expected
    assert len(fake.posts) == 1  # posted once, never again after a broken answer
    if how != "short":
        assert DEADLINE_S <= done.elapsed_s < DEADLINE_S + MARGIN_S
    if how == "drip":
        assert 0 < fake.dripped < len(BODY)  # each read was quick: the whole was not


@pytest.mark.req("R-A56", "R-D66")
@pytest.mark.parametrize("client", CLIENTS)
async def test_a_whole_answer_in_time_is_passed_on(
    tmp_path: Path, module: Path, client: str
) -> None:
    done, fake = await _run("whole", client, tmp_path, module)
    assert (done.returncode, done.stdout, done.stderr) == (0, BODY, "")
    assert len(fake.posts) == 1
    assert b'"command": "ls"' in fake.posts[0]


def _commands(settings: dict[str, Any]) -> list[tuple[list[str], int]]:
    """Each command handler's words and timeout."""
    return [
        (shlex.split(handler["command"], comments=True), handler["timeout"])
        for groups in settings["hooks"].values()
        for group in groups
        for handler in group["hooks"]
        if handler["type"] == "command"
    ]


@pytest.mark.req("R-D66")
def test_install_gives_each_call_shim_its_events_budget_as_the_deadline(
    tmp_path: Path, module: Path
) -> None:
    box = Box(tmp_path)
    for scope in ("local", "project"):
        done = hookd(box, "install", ".claude/hooks.py", "--scope", scope, "--no-start")
        assert done.returncode == 0, done.stderr
    local = _commands(read_settings(box.project / ".claude" / "settings.local.json"))
    assert {words[1] for words, _ in local} >= {"call"} and local
    for words, timeout in local:
        at = words.index("--port")
        assert words[at + 2 :] == ["--deadline", str(timeout - 30)]  # the budget: 30 s to start
    shared = _commands(read_settings(box.project / ".claude" / "settings.json"))
    assert shared and all("--deadline" not in words for words, _ in shared)
