"""``hookd call`` when the daemon already answers: the shim's usual case without the parsers.

Claude Code runs ``hookd call UserPromptSubmit --hooks HOOKS --port N`` on every prompt and
the SessionStart shim at every session start, so their usual case is paid each time. The
words ``hookd install`` writes are read by hand; :func:`hookd.daemon.fastup.quick_up` decides,
with its own checks, that the module's daemon answers on that port; then the input is posted
to it. Anything else (other words, ``--help``, no daemon, nothing posted) returns None before
the input is posted, and the full command decides again from the beginning, reading the same
input (it is handed back as stdin). An answer other than 200 is reported here as the full
command would report it; an input is never posted twice while a daemon answers.
"""

from __future__ import annotations

import io
import os
import sys

from hookd.daemon.client import HOOK_TIMEOUT_S, Reply, Unreachable, request
from hookd.daemon.fastup import quick_up
from hookd.daemon.where import (
    HOST,
    RECORD_HEADER,
    RECORD_ID_ENV,
    TOKEN_ENV,
    module_key,
    state_dir,
    token_file,
    xdg_dirs,
)

__all__ = ["quick_call"]


def quick_call(words: list[str]) -> int | None:
    """The shim's exit status once the running daemon has answered; else None."""
    got = _read_words(words)
    if got is None:
        return None
    event, hooks, port, token_env, fail_open = got
    up = [hooks, "--port", port, "--quiet", *(["--token-env"] if token_env else [])]
    token = _token(hooks, token_env)
    body = sys.stdin.buffer.read().strip()
    if not token or quick_up(up) != 0:
        _hand_over(body)
        return None
    reply = _post(event, int(port), token, body)
    if reply is None or reply.status == 401:  # gone, or another token: the full command
        _hand_over(body)
        return None
    if reply.status == 200:
        sys.stdout.buffer.write(reply.body or b"{}")
        sys.stdout.flush()
        return 0
    from hookd.daemon.commands import shim_failure

    detail = reply.body.decode(errors="replace").strip()[:500]
    return shim_failure(event, fail_open, f"the daemon answered HTTP {reply.status}: {detail}")


def _post(event: str, port: int, token: str, body: bytes) -> Reply | None:
    recording = os.environ.get(RECORD_ID_ENV)
    try:
        return request(
            HOST, port, "POST", f"/hook/{event}", token=token, body=body,
            timeout_s=HOOK_TIMEOUT_S, headers=((RECORD_HEADER, recording),) if recording else (),
        )  # fmt: skip
    except Unreachable:
        return None


def _read_words(words: list[str]) -> tuple[str, str, str, bool, bool] | None:
    """EVENT, HOOKS, PORT, --token-env, --fail-open from the words ``hookd install`` writes."""
    if not words or words[0].startswith("-"):
        return None
    event, hooks, port, token_env, fail_open = words[0], "", "", False, False
    rest = iter(words[1:])
    for word in rest:
        if word == "--hooks":
            hooks = next(rest, "")
        elif word == "--port":
            port = next(rest, "")
        elif word == "--token-env":
            token_env = True
        elif word == "--fail-open":
            fail_open = True
        else:
            return None
    if not (hooks and port.isascii() and port.isdigit() and event.isidentifier()):
        return None
    return event, hooks, port, token_env, fail_open


def _token(hooks: str, token_env: bool) -> str:
    if token_env:
        return os.environ.get(TOKEN_ENV, "")
    dirs = xdg_dirs()
    if dirs is None:
        return ""
    key = module_key(os.path.realpath(os.path.expanduser(hooks)))
    try:
        with open(token_file(state_dir(dirs[0], key)), "rb") as f:
            return f.read(4096).decode(errors="replace").strip()
    except OSError:
        return ""


def _hand_over(body: bytes) -> None:
    """Give the input back as stdin, for the full command to read."""
    sys.stdin = io.TextIOWrapper(io.BytesIO(body))
