"""Start, find and stop the daemon of one hooks module.

The daemon is ``hookd serve HOOKS --http 127.0.0.1:PORT``, started detached
(its own session, stdio on its log file). It writes its ready file once it
listens; ``hookd up`` waits for that file and for an answer to ``GET /status``.
Only the standard library is imported here: the fast path of ``hookd up`` (the
daemon already answers) is one file read and one local HTTP request.

Finding it is :mod:`hookd.daemon.probe`; a port held by anything but the
module's daemon is :class:`Squatted`, which ``hookd up`` reports with a
blocking exit.
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

from hookd.daemon.paths import (
    DaemonPaths,
    port_field,
    read_json,
    read_key,
    read_token,
    rotate_token,
)
from hookd.daemon.probe import Running, alive, is_ours, probe, read_ready
from hookd.daemon.where import HOST, RECORD_ID_ENV
from hookd.errors import HookdError
from hookd.transcript import RECORD_ENV

TYPE_CHECKING = False  # without importing typing
if TYPE_CHECKING:
    from subprocess import Popen

__all__ = [
    "DaemonError",
    "Squatted",
    "StartOptions",
    "daemon_port",
    "default_port",
    "ensure_up",
    "stop",
]

START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 5.0
POLL_S = 0.01
LOG_ROTATE_BYTES = 10 * 1024 * 1024
PORT_BASE, PORT_SPAN = 20000, 10000
SETTLE_TRIES, SETTLE_S = 12, 0.1


class DaemonError(HookdError):
    """The daemon could not be started, reached or stopped; the message says why."""


class Squatted(DaemonError):
    """The port is held by something that is not the module's daemon: a blocking failure."""


class StartOptions:
    """How to start a daemon (plain classes here: ``dataclasses`` costs start-up time)."""

    __slots__ = (
        "decision_args",
        "decision_log",
        "idle_exit_s",
        "otel_endpoint",
        "port",
        "reload",
        "shadow",
        "token",
        "token_from_env",
    )

    def __init__(
        self,
        port: int,
        token: str,
        token_from_env: bool = False,
        idle_exit_s: float = 0.0,
        reload: bool = True,
        *,
        decision_log: bool = True,
        decision_args: tuple[str, ...] = (),
        shadow: bool = False,
        otel_endpoint: str | None = None,
    ) -> None:
        self.port = port
        self.token = token
        self.token_from_env = token_from_env
        self.idle_exit_s = idle_exit_s
        self.reload = reload
        #: Keep the decision log (``hookd log``), with these ``hookd serve`` options for it.
        self.decision_log = decision_log
        self.decision_args = decision_args
        self.shadow = shadow
        #: ``--otel-endpoint`` (else the install's, else the OTEL_* environment's).
        self.otel_endpoint = otel_endpoint


def default_port(paths: DaemonPaths) -> int:
    """A port derived from the module's key, so one module keeps one port."""
    return PORT_BASE + int(paths.key.rsplit("-", 1)[1], 16) % PORT_SPAN


# --------------------------------------------------------------------------- starting


@contextlib.contextmanager
def _start_lock(paths: DaemonPaths) -> Iterator[None]:
    """One ``hookd up`` at a time per module (sessions often start together)."""
    fd = os.open(paths.lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)  # never via a link
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
        running = _start(paths, options)
        if not options.token_from_env:
            _settle(paths, options.token)
        return running, True


def _rotate(paths: DaemonPaths) -> str:
    from hookd.daemon.rotation import rewrite_settings

    token = rotate_token(paths)
    rewrite_settings(paths, token)
    return token


def _settle(paths: DaemonPaths, token: str) -> None:
    """Check the settings files again once the daemon answers: a program that rewrote one
    from what it had read before the new token was written (the CLI saving a permission
    rule) put the old token back, and every http hook would be refused. After a fix, the
    files must be found right twice, SETTLE_S apart (a program stopped by a busy machine
    between its read and its write writes late), a few times at most."""
    from hookd.daemon.rotation import rewrite_settings

    fixed, clean = False, 0
    for _ in range(SETTLE_TRIES):
        if rewrite_settings(paths, token, quiet=True):
            fixed, clean = True, 0  # fixed (or could not be read): check again later
        else:
            clean += 1
        if clean >= (2 if fixed else 1):
            return
        time.sleep(SETTLE_S)


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
    if options.decision_log:
        argv += ["--decision-log", str(paths.decisions), *options.decision_args]
    record = read_json(paths.record) or {}
    if options.shadow or record.get("shadow") is True:
        argv.append("--shadow")
    endpoint = options.otel_endpoint or record.get("otel_endpoint")
    if isinstance(endpoint, str) and endpoint:
        argv += ["--otel-endpoint", endpoint]
    return argv


def _start(paths: DaemonPaths, options: StartOptions) -> Running:
    import subprocess

    read_key(paths)  # made before the daemon reads it
    _rotate_log(paths.log)
    # A recording belongs to the session that asked for it, never to the daemon's whole life.
    env = {k: v for k, v in os.environ.items() if k not in (RECORD_ENV, RECORD_ID_ENV)}
    if options.token_from_env:
        env["HOOKD_TOKEN"] = options.token
    log_fd = os.open(paths.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600)
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
        ready = read_ready(paths)
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
    ready = read_ready(paths)
    paths.ready.unlink(missing_ok=True)  # from now on `hookd up` does not see it as running
    if ready is None or not alive(ready[0]) or not is_ours(paths, ready[0]):
        return None
    import signal

    pid = ready[0]
    os.kill(pid, signal.SIGTERM)
    killed = False
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while alive(pid) and not _reaped(pid):
        if time.monotonic() > deadline:
            if killed:
                break
            # a daemon that does not end on SIGTERM (stopped, or stuck in C) is killed, and
            # waited for too: its port is free only once it has exited
            os.kill(pid, signal.SIGKILL)
            killed, deadline = True, time.monotonic() + STOP_TIMEOUT_S
        time.sleep(POLL_S)
    return pid


def _reaped(pid: int) -> bool:
    """Reap ``pid`` if it is our own child (a daemon this process started)."""
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return False
    return done == pid


def daemon_port(paths: DaemonPaths, given: int | None) -> int:
    """``given``, else the port of the module's install, of its running daemon, or its own."""
    if given is not None:
        return given
    for source in (read_json(paths.record), read_json(paths.ready)):
        port = port_field(source)
        if port is not None:
            return port
    return default_port(paths)
