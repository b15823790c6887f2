"""Running the installed ``hookd`` console script with private HOME and XDG directories."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

__all__ = [
    "HOOKD",
    "Box",
    "Recorder",
    "hookd",
    "pose_as_daemon",
    "recording_server",
    "squatter",
    "wait_for_line",
]

#: The console script installed beside the interpreter running the tests.
HOOKD = str(Path(sys.executable).parent / "hookd")
COMMAND_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Box:
    """A private home: HOME, the XDG state and runtime directories, a project directory."""

    root: Path

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def project(self) -> Path:
        return self.root / "project"

    @property
    def state(self) -> Path:
        return self.root / "xdg-state"

    @property
    def runtime(self) -> Path:
        return self.root / "xdg-run"

    def env(self, **extra: str) -> dict[str, str]:
        for d in (self.home, self.project, self.state, self.runtime):
            d.mkdir(parents=True, exist_ok=True)
        self.runtime.chmod(0o700)
        base = {
            "PATH": os.environ.get("PATH", os.defpath),
            "HOME": str(self.home),
            "XDG_STATE_HOME": str(self.state),
            "XDG_RUNTIME_DIR": str(self.runtime),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_DATA_HOME": str(self.home / ".local" / "share"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
        }
        return {**base, **extra}

    def daemon_dirs(self) -> list[Path]:
        """The per-module state directories hookd made."""
        base = self.state / "hookd" / "daemons"
        return sorted(base.iterdir()) if base.is_dir() else []

    def token(self) -> str:
        (state,) = self.daemon_dirs()
        return (state / "token").read_text().strip()


def hookd(
    box: Box,
    *args: str,
    stdin: bytes = b"",
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run the console script to exit (under a timeout)."""
    return subprocess.run(
        [HOOKD, *args],
        input=stdin.decode(),
        capture_output=True,
        text=True,
        cwd=cwd or box.project,
        env=dict(env) if env is not None else box.env(),
        timeout=COMMAND_TIMEOUT_S,
        check=False,
    )


@dataclass
class Recorder:
    """What a recording server received, and what it answers next."""

    status: int = 200
    body: bytes = b"{}"
    requests: list[dict[str, Any]] = field(default_factory=list)
    port: int = 0
    proof_key: bytes | None = None  # set: it proves itself as the module's daemon would


@contextmanager
def recording_server() -> Iterator[Recorder]:
    """A tiny HTTP server on 127.0.0.1 that records requests and answers from ``Recorder``."""
    rec = Recorder()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            if rec.proof_key is not None and self.path == "/status":
                self._send(200, json.dumps({"pid": os.getpid()}).encode())
                return
            rec.requests.append(
                {"method": self.command, "path": self.path, "headers": dict(self.headers),
                 "body": body}
            )  # fmt: skip
            self._send(rec.status, rec.body)

        def _send(self, status: int, body: bytes) -> None:
            self.send_response(status)
            nonce = self.headers.get("X-Hookd-Challenge")
            if rec.proof_key is not None and nonce:
                message = f"hookd-proof\n{nonce}\n{os.getpid()}\n{rec.port}".encode()
                proof = hmac.new(rec.proof_key, message, hashlib.sha256).hexdigest()
                self.send_header("X-Hookd-Proof", proof)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _answer

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    rec.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield rec
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def pose_as_daemon(box: Box, hooks: Path, rec: Recorder) -> None:
    """Make the recording server the module's daemon to hookd: the ready file names this
    process and the server's port, and the server proves itself with the module's key."""
    from hookd.daemon.where import key_file, module_key, ready_file, state_dir

    key = module_key(str(hooks.resolve()))
    own = Path(state_dir(str(box.state / "hookd"), key))
    own.mkdir(parents=True, exist_ok=True)
    rec.proof_key = os.urandom(32).hex().encode()
    Path(key_file(str(own))).write_bytes(rec.proof_key + b"\n")
    ready = Path(ready_file(str(box.runtime / "hookd"), key))
    ready.parent.mkdir(mode=0o700, exist_ok=True)
    ready.write_text(json.dumps({"pid": os.getpid(), "port": rec.port}))


def read_settings(path: Path) -> dict[str, Any]:
    value = json.loads(path.read_text())
    assert isinstance(value, dict)
    return value


def wait_for_line(path: Path, needle: str, timeout_s: float) -> str:
    """Wait (on file-system events) until a line of ``path`` contains ``needle``; that line."""
    from watchfiles import watch

    def found() -> str | None:
        try:
            lines = path.read_text(errors="replace").splitlines()
        except FileNotFoundError:
            return None
        return next((line for line in lines if needle in line), None)

    deadline = time.monotonic() + timeout_s
    line = found()
    if line is not None:
        return line
    for _ in watch(path.parent, debounce=10, step=10, rust_timeout=200, yield_on_timeout=True):
        line = found()
        if line is not None:
            return line
        if time.monotonic() > deadline:
            break
    raise AssertionError(f"no line with {needle!r} in {path} within {timeout_s:g}s")


#: A stranger on the daemon's port: answers 200 and ``{"pid": PID}`` (PID given, else its
#: own) to every request, and prints ``listening`` once bound.
SQUATTER = """
import json, os, sys
from http.server import BaseHTTPRequestHandler, HTTPServer

PID = int(sys.argv[2]) if len(sys.argv) > 2 else os.getpid()
BODY = json.dumps({"pid": PID}).encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _answer(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        print("request", self.command, self.path, flush=True)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)

    do_GET = do_POST = _answer


server = HTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
print("listening", flush=True)
server.serve_forever()
"""


@contextmanager
def squatter(port: int, pid: int | None = None) -> Iterator[subprocess.Popen[str]]:
    """Another program holding ``port``: a Python HTTP server answering 200 to everything."""
    argv = [sys.executable, "-c", SQUATTER, str(port), *([str(pid)] if pid else [])]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "listening\n", "the squatter could not bind"
        yield proc
    finally:
        proc.kill()
        proc.wait(timeout=10)
