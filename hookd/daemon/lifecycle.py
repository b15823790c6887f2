"""Start, find and stop the daemon of one hooks module.

The daemon is ``hookd serve HOOKS --http 127.0.0.1:PORT``, started detached
(its own session, stdio on its log file). It writes its ready file once it
listens; ``hookd up`` waits for that file and for an answer to ``GET /status``.
Only the standard library is imported here: the fast path of ``hookd up`` (the
daemon already answers) is one file read and one local HTTP request.

A daemon is the module's only when its ready file names it (pid and port) and
it answers a fresh random challenge with :func:`~hookd.daemon.where.proof`
under the module's proof key, a file only this user's processes can read and
that never travels on the wire. Anything else on the port is a stranger: it
decides nothing, and ``hookd up`` says so with a blocking exit (:class:`Squatted`).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from hookd.daemon.client import Reply, Unreachable, get_json
from hookd.daemon.paths import DaemonPaths, read_json, read_key, read_token, rotate_token
from hookd.daemon.where import HOST, proof

TYPE_CHECKING = False  # without importing typing
if TYPE_CHECKING:
    from subprocess import Popen

__all__ = [
    "DaemonError",
    "Running",
    "Squatted",
    "StartOptions",
    "default_port",
    "ensure_up",
    "probe",
    "proven",
    "ready_pid",
    "stop",
]

START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 5.0
POLL_S = 0.01
LOG_ROTATE_BYTES = 10 * 1024 * 1024
PORT_BASE, PORT_SPAN = 20000, 10000


class DaemonError(Exception):
    """The daemon could not be started, reached or stopped; the message says why."""


class Squatted(DaemonError):
    """The port is held by something that is not the module's daemon: a blocking failure."""


class Running:
    """A daemon that answered ``GET /status`` with the expected token."""

    __slots__ = ("pid", "port", "status")

    def __init__(self, pid: int, port: int, status: dict[str, object]) -> None:
        self.pid = pid
        self.port = port
        self.status = status


class StartOptions:
    """How to start a daemon (plain classes here: ``dataclasses`` costs start-up time)."""

    __slots__ = ("idle_exit_s", "port", "reload", "token", "token_from_env")

    def __init__(
        self,
        port: int,
        token: str,
        token_from_env: bool = False,
        idle_exit_s: float = 0.0,
        reload: bool = True,
    ) -> None:
        self.port = port
        self.token = token
        self.token_from_env = token_from_env
        self.idle_exit_s = idle_exit_s
        self.reload = reload


def default_port(paths: DaemonPaths) -> int:
    """A port derived from the module's key, so one module keeps one port."""
    return PORT_BASE + int(paths.key.rsplit("-", 1)[1], 16) % PORT_SPAN


# ---------------------------------------------------------------------------- finding


def _ready(paths: DaemonPaths) -> tuple[int, int] | None:
    info = read_json(paths.ready)
    if info is None:
        return None
    pid, port = info.get("pid"), info.get("port")
    return (pid, port) if isinstance(pid, int) and isinstance(port, int) else None


def ready_pid(paths: DaemonPaths, port: int) -> int | None:
    """The pid of the ready file when it names ``port``."""
    ready = _ready(paths)
    return ready[0] if ready is not None and ready[1] == port else None


def challenge() -> str:
    """A fresh random nonce for :func:`proven`."""
    return os.urandom(16).hex()


def proven(paths: DaemonPaths, reply: Reply, nonce: str, pid: int, port: int) -> bool:
    """Whether ``reply`` carries the proof of ``nonce`` that only the module's daemon can make."""
    from _operator import _compare_digest

    expected = proof(read_key(paths).encode(), nonce, pid, port).encode()
    return bool(_compare_digest(reply.proof, expected))


def probe(paths: DaemonPaths, token: str) -> Running | str | None:
    """The running daemon; ``None`` when there is none; ``"token"`` when one of ours wants
    another token or cannot prove itself (an older hookd): it is to be started again."""
    ready = _ready(paths)
    if ready is None:
        return None
    pid, port = ready
    nonce = challenge()
    try:
        reply = get_json(HOST, port, "/status", token, challenge=nonce)
    except Unreachable:
        return None
    if reply.status == 200 and proven(paths, reply, nonce, pid, port):
        status = reply.json()
        if isinstance(status, dict) and status.get("pid") == pid:
            return Running(pid, port, status)
    return "token" if _is_ours(paths, pid) else None


def _is_ours(paths: DaemonPaths, pid: int) -> bool:
    """Whether ``pid`` is this module's daemon (its command line names our ready file)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return _alive(pid) and sys.platform != "linux"
    return str(paths.ready).encode() in cmdline


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs; a zombie (exited, not yet reaped by its parent) does not."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state != b"Z"


# --------------------------------------------------------------------------- starting


@contextlib.contextmanager
def _start_lock(paths: DaemonPaths) -> Iterator[None]:
    """One ``hookd up`` at a time per module (sessions often start together)."""
    fd = os.open(paths.lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise DaemonError("another `hookd up` holds the start lock") from None
                time.sleep(POLL_S)
        yield
    finally:
        os.close(fd)


def ensure_up(paths: DaemonPaths, options: StartOptions) -> tuple[Running, bool]:
    """The module's daemon on ``options.port``, started if needed; True if it was started.

    A start gives the daemon a new token (unless it comes from the environment):
    whatever a stranger on the port may have received before is worth nothing.
    """
    found = probe(paths, options.token)
    if isinstance(found, Running) and found.port == options.port:
        return found, False
    with _start_lock(paths):
        if not options.token_from_env:  # another `hookd up` may have just started one
            options.token = read_token(paths) or options.token
        found = probe(paths, options.token)
        if isinstance(found, Running) and found.port == options.port:
            return found, False
        if found is not None:  # ours, but on another port or with another token
            _stop_locked(paths)
        paths.ready.unlink(missing_ok=True)
        _check_port_free(options.port)
        if not options.token_from_env:
            options.token = _rotate(paths)
        return _start(paths, options), True


def _rotate(paths: DaemonPaths) -> str:
    from hookd.daemon.rotation import rewrite_settings

    token = rotate_token(paths)
    rewrite_settings(paths, token)
    return token


def _check_port_free(port: int) -> None:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((HOST, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise Squatted(
                    f"port {port} on {HOST} is held by another program, not this module's "
                    "daemon (it cannot prove the module's key); stop that program, or move "
                    "with `hookd install HOOKS --port N`"
                ) from None
            raise DaemonError(f"cannot use port {port}: {exc.strerror}") from None


def serve_argv(paths: DaemonPaths, options: StartOptions) -> list[str]:
    """The daemon's command line."""
    # -P: the daemon runs in the module's folder, which must not come before hookd's own
    # dependencies on sys.path (a `watchfiles.py` there would replace the library)
    argv = [sys.executable, "-P", "-m", "hookd", "serve", str(paths.module)]
    argv += ["--http", f"{HOST}:{options.port}", "--ready-file", str(paths.ready)]
    argv += ["--log-format", "json", "--log-max-bytes", str(LOG_ROTATE_BYTES)]
    if options.idle_exit_s > 0:
        argv += ["--idle-exit", f"{options.idle_exit_s:g}"]
    if not options.token_from_env:
        argv += ["--token-file", str(paths.token)]
    argv += ["--proof-key-file", str(paths.proof_key)]
    if options.reload:
        argv.append("--reload")
    return argv


def _start(paths: DaemonPaths, options: StartOptions) -> Running:
    import subprocess

    read_key(paths)  # made before the daemon reads it
    _rotate_log(paths.log)
    env = dict(os.environ)
    if options.token_from_env:
        env["HOOKD_TOKEN"] = options.token
    log_fd = os.open(paths.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        proc = subprocess.Popen(
            serve_argv(paths, options),
            stdin=subprocess.DEVNULL,
            stdout=log_fd,
            stderr=log_fd,
            cwd=paths.module.parent,
            env=env,
            start_new_session=True,  # outlives the hook command that started it
        )
    finally:
        os.close(log_fd)
    return _wait_ready(paths, proc, options.token)


def _wait_ready(paths: DaemonPaths, proc: Popen[bytes], token: str) -> Running:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise DaemonError(f"the daemon exited at start-up: {_last_error(paths.log)}")
        ready = _ready(paths)
        if ready is not None and ready[0] == proc.pid:
            found = probe(paths, token)
            if isinstance(found, Running):
                return found
        time.sleep(POLL_S)
    proc.kill()
    raise DaemonError(f"the daemon did not answer within {START_TIMEOUT_S:g}s (log: {paths.log})")


def _last_error(log: Path) -> str:
    try:
        lines = log.read_text(errors="replace").splitlines()
    except OSError:
        return "(no log)"
    for line in reversed(lines):
        if "error" in line.lower():
            return line.strip()
    return lines[-1].strip() if lines else "(empty log)"


def _rotate_log(log: Path) -> None:
    with contextlib.suppress(OSError):
        if log.stat().st_size > LOG_ROTATE_BYTES:
            os.replace(log, log.with_suffix(".log.1"))


# --------------------------------------------------------------------------- stopping


def stop(paths: DaemonPaths) -> int | None:
    """Stop the module's daemon; its pid, or None when none was running. Stale files go.

    The start lock is held throughout, so a ``hookd up`` meanwhile waits and then
    starts a new daemon instead of taking the one being stopped for running.
    """
    with _start_lock(paths):
        return _stop_locked(paths)


def _stop_locked(paths: DaemonPaths) -> int | None:
    ready = _ready(paths)
    paths.ready.unlink(missing_ok=True)  # from now on `hookd up` does not see it as running
    if ready is None or not _alive(ready[0]) or not _is_ours(paths, ready[0]):
        return None
    import signal

    pid = ready[0]
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while _alive(pid) and not _reaped(pid):
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            break
        time.sleep(POLL_S)
    return pid


def _reaped(pid: int) -> bool:
    """Reap ``pid`` if it is our own child (a daemon this process started)."""
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return False
    return done == pid
