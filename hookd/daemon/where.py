"""Where a daemon's files are, in plain strings: the module's key and the XDG directories.

Only ``os``, ``stat`` and ``sys``: :mod:`hookd.daemon.paths` builds its paths on
these, and ``hookd up``'s fast path (:mod:`hookd.daemon.fastup`) reads the ready
file and the token through them without importing ``pathlib``.
"""

from __future__ import annotations

import os
import stat
import sys

TYPE_CHECKING = False  # without importing typing
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "APP",
    "CHALLENGE_HEADER",
    "HOST",
    "MIN_TOKEN_CHARS",
    "PROOF_HEADER",
    "RECORD_HEADER",
    "RECORD_ID_ENV",
    "START_FIELD",
    "TOKEN_ENV",
    "key_file",
    "leading_pid",
    "module_key",
    "proof",
    "ready_file",
    "stale_ready",
    "start_ticks",
    "state_dir",
    "token_file",
    "xdg_dirs",
]

APP = "hookd"
#: The daemon listens on loopback only.
HOST = "127.0.0.1"
#: The token in project scope, where settings shared through git cannot carry it.
TOKEN_ENV = "HOOKD_TOKEN"
#: Set by ``hookd record`` for the session it wraps: the id of the daemon's recording. The shims
#: pass it on in :data:`RECORD_HEADER`, and the daemon records the session they post for.
RECORD_ID_ENV = "HOOKD_RECORD_ID"
RECORD_HEADER = "X-Hookd-Record"
#: The shortest ``$HOOKD_TOKEN`` accepted (a guessable token is no token).
MIN_TOKEN_CHARS = 16
#: A random nonce the client sends; the daemon answers :func:`proof` of it.
CHALLENGE_HEADER = "X-Hookd-Challenge"
PROOF_HEADER = "X-Hookd-Proof"
#: The ready file's field for when the daemon started: field 22 of ``/proc/PID/stat``.
START_FIELD = "start_ticks"
_BLOCK = 64


def _sha256() -> Any:
    try:  # the builtin module: hashlib would load OpenSSL (milliseconds of start-up)
        from _sha256 import sha256  # type: ignore[import-not-found]
    except ImportError:  # Python 3.12 and later
        try:
            from _sha2 import sha256  # type: ignore[import-not-found]
        except ImportError:
            from hashlib import sha256
    return sha256


def module_key(module: str) -> str:
    """``STEM-HASH``: the module's file stem and 12 hex digits of its resolved path's sha256."""
    digest: str = _sha256()(module.encode()).hexdigest()[:12]
    stem = os.path.splitext(os.path.basename(module))[0]
    return f"{stem}-{digest}"


def xdg_dirs() -> tuple[str, str] | None:
    """platformdirs' user state and runtime directories in the usual Linux case, else None.

    The usual case: an absolute ``$HOME`` or ``$XDG_STATE_HOME``, and a runtime
    directory (``$XDG_RUNTIME_DIR``, else ``/run/user/UID``) that is a real
    directory of ours with mode 0700. Importing platformdirs costs ``hookd up``
    a third of its start-up; a test keeps the two in agreement.
    """
    if sys.platform != "linux":
        return None
    state = os.environ.get("XDG_STATE_HOME", "")
    if not os.path.isabs(state):
        if not os.path.isabs(os.environ.get("HOME", "")):
            return None
        state = os.path.expanduser("~/.local/state")
    run = os.environ.get("XDG_RUNTIME_DIR", "")
    if not os.path.isabs(run):
        run = f"/run/user/{os.geteuid()}"
    if not _private_dir(run):
        return None
    return os.path.join(state, APP), os.path.join(run, APP)


def _private_dir(path: str) -> bool:
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return (
        stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and info.st_mode & 0o777 == 0o700
    )


def state_dir(state: str, key: str) -> str:
    """The module's lasting files: token, log, install record."""
    return os.path.join(state, "daemons", key)


def ready_file(run: str, key: str) -> str:
    """Written by the daemon once it listens: pid, host, port, module, started."""
    return os.path.join(run, f"{key}.json")


def token_file(module_state: str) -> str:
    """The daemon's token, in the module's :func:`state_dir`."""
    return os.path.join(module_state, "token")


def key_file(module_state: str) -> str:
    """The daemon's proof key, in the module's :func:`state_dir`: never sent on the wire."""
    return os.path.join(module_state, "proof.key")


def proof(key: bytes, nonce: str, pid: int, port: int) -> str:
    """HMAC-SHA256 (RFC 2104) of the nonce, pid and port under the proof key, in hex.

    Only a process that read the key file (this module's daemon) can answer a
    fresh nonce; the pid and port bind the answer to the daemon of the ready
    file on the port asked, so it cannot be relayed from another port. Written
    out with the builtin sha256: the ``hmac`` module imports OpenSSL.
    """
    sha256 = _sha256()
    if len(key) > _BLOCK:
        key = sha256(key).digest()
    key = key.ljust(_BLOCK, b"\0")
    inner = sha256(bytes(b ^ 0x36 for b in key) + proof_message(nonce, pid, port)).digest()
    digest: str = sha256(bytes(b ^ 0x5C for b in key) + inner).hexdigest()
    return digest


def proof_message(nonce: str, pid: int, port: int) -> bytes:
    """What :func:`proof` signs."""
    return f"hookd-proof\n{nonce}\n{pid}\n{port}".encode()


def leading_pid(data: bytes) -> int | None:
    """N from a JSON object that starts ``{"pid": N,``: the ready file and ``GET /status``."""
    head = data[:32]
    if not head.startswith(b'{"pid":'):
        return None
    digits = head[7:].lstrip(b" ").partition(b",")[0]
    return int(digits) if digits.isdigit() and len(digits) < 11 else None


def start_ticks(pid: int) -> int | None:
    """When ``pid`` started, in clock ticks after boot (field 22 of ``/proc/PID/stat``); None
    when it does not run (a zombie has exited: its sockets are closed) or there is no /proc."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()  # after the name, which may hold ") "
    except (OSError, IndexError):
        return None
    if len(fields) < 20 or fields[0] in (b"Z", b"X") or not fields[19].isdigit():
        return None
    return int(fields[19])


def stale_ready(data: bytes, pid: int) -> bool:
    """Whether the ready file ``data``, naming ``pid``, outlived its daemon: it gives a start
    time, and ``pid`` is not a live process that started then (the daemon was killed without
    cleaning up; the pid may be another program's now). Nothing is to be sent to its port.
    A file without a start time (no /proc, or an older hookd) is left to the proof."""
    _, found, rest = data.partition(f'"{START_FIELD}":'.encode())
    digits = rest.lstrip(b" ").partition(b",")[0].partition(b"}")[0].strip()
    if not found or not digits.isdigit() or len(digits) > 19:
        return False
    return start_ticks(pid) != int(digits)
