"""Find the daemon of one hooks module, and tell it from another program on its port.

A daemon is the module's only when its ready file names it (pid and port; the
pid still the process that started at the time the file gives) and it answers a
fresh random challenge with :func:`~hookd.daemon.where.proof` under the module's
proof key, a file only this user's processes can read and
that never travels on the wire. Anything else on the port is a stranger.
Standard library only, as :mod:`hookd.daemon.lifecycle`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hookd.daemon.client import Reply, Unreachable, get_json
from hookd.daemon.paths import DaemonPaths, read_json, read_key
from hookd.daemon.where import HOST, proof, stale_ready

__all__ = ["Running", "alive", "challenge", "is_ours", "probe", "proven", "read_ready", "ready_pid"]


class Running:
    """A daemon that answered ``GET /status`` with the expected token."""

    __slots__ = ("pid", "port", "status")

    def __init__(self, pid: int, port: int, status: dict[str, object]) -> None:
        self.pid = pid
        self.port = port
        self.status = status


def read_ready(paths: DaemonPaths) -> tuple[int, int] | None:
    info = read_json(paths.ready)
    if info is None:
        return None
    pid, port = info.get("pid"), info.get("port")
    return (pid, port) if isinstance(pid, int) and isinstance(port, int) else None


def ready_pid(paths: DaemonPaths, port: int) -> int | None:
    """The pid of the ready file when it names ``port``."""
    ready = read_ready(paths)
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
    ready = read_ready(paths)
    if ready is None:
        return None
    pid, port = ready
    if stale_ready(_read_bytes(paths.ready), pid):
        return None  # its daemon is gone: the port may be anyone's, and is sent nothing
    nonce = challenge()
    try:
        reply = get_json(HOST, port, "/status", token, challenge=nonce)
    except Unreachable:
        return None
    if reply.status == 200 and proven(paths, reply, nonce, pid, port):
        status = reply.json()
        if isinstance(status, dict) and status.get("pid") == pid:
            return Running(pid, port, status)
    return "token" if is_ours(paths, pid) else None


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def is_ours(paths: DaemonPaths, pid: int) -> bool:
    """Whether ``pid`` is this module's daemon (its command line names our ready file)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return alive(pid) and sys.platform != "linux"
    return str(paths.ready).encode() in cmdline


def alive(pid: int) -> bool:
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
