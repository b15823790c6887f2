"""``hookd call`` when the daemon already answers: the shim's usual case without the parsers.

Claude Code runs ``hookd call UserPromptSubmit --hooks HOOKS --port N`` on every prompt and the
SessionStart shim at every session start, so their usual case is paid each time. The words
``hookd install`` writes are read by hand; :func:`hookd.daemon.fastup.quick_up` decides, with
its own checks, that the module's daemon answers on that port and proves itself; then the input
is posted to it with a fresh challenge, and the answer is used only when it carries the
daemon's proof again (the port may have changed hands in between). Anything else (other words,
``--help``, no daemon) returns None before the input is posted, as do a 401 and an answer
without the proof after it (never used), and the full command decides again from the beginning,
reading the same input (it is handed back as stdin). Another answer than 200, and an answer that
is not whole within ``--deadline`` (cut short, stalled, dripping), are reported here as the full
command would report them; an input is never posted twice to a daemon that answered.
"""

from __future__ import annotations

import io
import os
import sys
from _operator import _compare_digest

from hookd.blocking import BLOCKING_EVENTS
from hookd.daemon.client import CALL_DEADLINE_S, Incomplete, Reply, Unreachable, request
from hookd.daemon.fastup import quick_up
from hookd.daemon.where import (
    HOST,
    RECORD_HEADER,
    RECORD_ID_ENV,
    TOKEN_ENV,
    key_file,
    leading_pid,
    module_key,
    proof,
    ready_file,
    state_dir,
    token_file,
    xdg_dirs,
)

__all__ = ["quick_call", "shim_failure"]


def quick_call(words: list[str]) -> int | None:
    """The shim's exit status once the running daemon has answered; else None."""
    got = _read_words(words)
    if got is None:
        return None
    event, hooks, port, token_env, fail_open, deadline_s = got
    up = [hooks, "--port", port, "--quiet", *(["--token-env"] if token_env else [])]
    dirs = _dirs(hooks)
    token = _token(dirs, token_env)
    body = sys.stdin.buffer.read().strip()
    if dirs is None or not token or quick_up(up) != 0:
        _hand_over(body)
        return None
    try:
        reply = _post(event, int(port), token, body, dirs, deadline_s=deadline_s)
    except Incomplete as exc:  # posted, and no whole answer in time: never posted again
        return shim_failure(event, fail_open, str(exc))
    if reply is None or reply.status == 401:  # gone, another token, not proven: the full command
        _hand_over(body)
        return None
    if reply.status == 200:
        sys.stdout.buffer.write(reply.body or b"{}")
        sys.stdout.flush()
        return 0
    detail = reply.body.decode(errors="replace").strip()[:500]
    return shim_failure(event, fail_open, f"the daemon answered HTTP {reply.status}: {detail}")


def _post(
    event: str, port: int, token: str, body: bytes, dirs: tuple[str, str], *, deadline_s: float
) -> Reply | None:
    """The daemon's answer; None when nothing answers or the answer lacks the daemon's proof.
    :class:`Incomplete` when the answer began but did not arrive whole within ``deadline_s``."""
    recording = os.environ.get(RECORD_ID_ENV)
    nonce = os.urandom(16).hex()
    try:
        reply = request(
            HOST, port, "POST", f"/hook/{event}", token=token, body=body, challenge=nonce,
            timeout_s=deadline_s, headers=((RECORD_HEADER, recording),) if recording else (),
        )  # fmt: skip
    except Incomplete:
        raise
    except Unreachable:
        return None
    return reply if _proven(reply, nonce, port, dirs) else None


def _proven(reply: Reply, nonce: str, port: int, dirs: tuple[str, str]) -> bool:
    """Whether ``reply`` carries the proof of ``nonce`` by the daemon of the ready file."""
    own, ready = dirs
    secret = _read(key_file(own)).strip()
    pid = leading_pid(_read(ready))
    if not secret or pid is None:
        return False
    return bool(_compare_digest(reply.proof, proof(secret, nonce, pid, port).encode()))


def _read_words(words: list[str]) -> tuple[str, str, str, bool, bool, float] | None:
    """EVENT, HOOKS, PORT, --token-env, --fail-open, --deadline from the words ``hookd
    install`` writes."""
    if not words or words[0].startswith("-"):
        return None
    event, hooks, port, token_env, fail_open = words[0], "", "", False, False
    deadline_s: float | None = CALL_DEADLINE_S
    rest = iter(words[1:])
    for word in rest:
        if word == "--hooks":
            hooks = next(rest, "")
        elif word == "--port":
            port = next(rest, "")
        elif word == "--deadline":
            deadline_s = _seconds(next(rest, ""))
        elif word == "--token-env":
            token_env = True
        elif word == "--fail-open":
            fail_open = True
        else:
            return None
    if not (hooks and port.isascii() and port.isdigit() and event.isidentifier()):
        return None
    return None if deadline_s is None else (event, hooks, port, token_env, fail_open, deadline_s)


def _seconds(text: str) -> float | None:
    """A positive number of seconds, else None (the full parser then says what is wrong)."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if 0 < value < 1e9 else None


def _dirs(hooks: str) -> tuple[str, str] | None:
    """The module's state directory and its ready file; None off the usual XDG layout."""
    dirs = xdg_dirs()
    if dirs is None:
        return None
    key = module_key(os.path.realpath(os.path.expanduser(hooks)))
    return state_dir(dirs[0], key), ready_file(dirs[1], key)


def _token(dirs: tuple[str, str] | None, token_env: bool) -> str:
    if token_env:
        return os.environ.get(TOKEN_ENV, "")
    if dirs is None:
        return ""
    return _read(token_file(dirs[0])).decode(errors="replace").strip()


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read(65536)
    except OSError:
        return b""


def _hand_over(body: bytes) -> None:
    """Give the input back as stdin, for the full command to read."""
    sys.stdin = io.TextIOWrapper(io.BytesIO(body))


def shim_failure(event: str, fail_open: bool, message: str) -> int:
    """Report a shim that got no answer: exit 2 (blocking) on a guarded event, else 1."""
    if event in BLOCKING_EVENTS and not fail_open:
        print(f"hookd call {event}: blocked: {message}", file=sys.stderr)
        return 2
    print(f"hookd call: error: {message}", file=sys.stderr)
    return 1
