"""``hookd record -- claude`` where ``hookd install`` wrote the settings: the daemon records.

The settings Claude Code will read from here (local, project and user scope) name the installed
module and its port in hookd's ``hookd call`` shims (a project-scope shim names no port: the
checkout's own daemon's, found as ``hookd call`` finds it). The module's daemon is started if
needed and asked (``POST /record/start``, with its token) to open the transcript under a fresh
recording id (its answers used only when they carry the daemon's proof); COMMAND runs with
``HOOKD_RECORD_ID`` set to it, so the session's shims pass it on and the daemon records that
session's requests, and no other's. When COMMAND exits, ``POST /record/stop`` closes the file.
``HOOKD_RECORD`` is not passed on: a daemon never records because of a client's environment.
"""

from __future__ import annotations

import json
import os
import secrets
import shlex
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from hookd.bounds import PORT
from hookd.daemon.client import Reply, Unreachable, request
from hookd.daemon.lifecycle import DaemonError, StartOptions, daemon_port, ensure_up
from hookd.daemon.paths import DaemonPaths, PathError, daemon_paths, module_path, read_token
from hookd.daemon.probe import challenge, proven, ready_pid
from hookd.daemon.settings import is_ours
from hookd.daemon.where import HOST, RECORD_ID_ENV, TOKEN_ENV
from hookd.errors import HookdError
from hookd.install.claude import InstallError, read_settings, settings_file
from hookd.transcript import RECORD_ENV

__all__ = ["Installed", "installed_here", "record_daemon"]

SCOPES = ("local", "project", "user")


@dataclass(frozen=True, slots=True)
class Installed:
    """A module ``hookd install`` pointed these settings at: its file, port and token source."""

    hooks: str
    port: int | None  # None: the checkout's own (project scope, R-D09)
    token_env: bool


def installed_here(project: Path) -> list[Installed]:
    """The installed modules whose shims the settings read from ``project`` hold."""
    found: dict[str, Installed] = {}
    for scope in SCOPES:
        try:
            settings = read_settings(settings_file(scope, project)) or {}
        except InstallError:
            continue
        for handler in _handlers(settings):
            one = _shim(handler, project)
            if one is not None:
                found.setdefault(one.hooks, one)
    return list(found.values())


def _handlers(settings: dict[str, object]) -> list[object]:
    hooks = settings.get("hooks")
    groups = [g for gs in hooks.values() if isinstance(gs, list) for g in gs] if isinstance(
        hooks, dict
    ) else []  # fmt: skip
    return [h for g in groups if isinstance(g, dict) for h in g.get("hooks") or []]


def _shim(handler: object, project: Path) -> Installed | None:
    """The module, port and token source of one of hookd's ``hookd call`` commands."""
    if not is_ours(handler, None) or not isinstance(handler, dict):
        return None
    command = str(handler.get("command", "")).rsplit(" #hookd=", 1)[0]
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(project)}
    try:
        words = [_expand(w, env) for w in shlex.split(command)]
    except ValueError:
        return None
    if "call" not in words or "--hooks" not in words:
        return None
    hooks = words[words.index("--hooks") + 1]
    port = words[words.index("--port") + 1] if "--port" in words else None  # project scope: none
    if port is not None and not PORT.accepts(port):
        return None  # not a shim install wrote ('²' is a digit to isdigit, not to int)
    given = None if port is None else int(port)
    return Installed(str(Path(hooks).expanduser()), given, "--token-env" in words)


def _expand(word: str, env: dict[str, str]) -> str:
    for name in ("CLAUDE_PROJECT_DIR", "HOME"):
        value = env.get(name, "")
        word = word.replace(f"${{{name}}}", value).replace(f"${name}", value)
    return word


class RecordError(HookdError):
    """The daemon could not be asked to record; the message says why."""


def record_daemon(command: Sequence[str], out: str | Path, target: Installed) -> int:
    """Run ``command`` while ``target``'s daemon records its session into ``out``."""
    out = Path(out).resolve()
    try:
        paths, options, recording = _start(target, out)
    except (RecordError, PathError, DaemonError) as exc:
        print(f"hookd record: error: {exc}", file=sys.stderr)
        return 2
    env = {k: v for k, v in os.environ.items() if k != RECORD_ENV}
    env[RECORD_ID_ENV] = recording
    try:
        returncode = subprocess.run(list(command), env=env, check=False).returncode
    except OSError as exc:
        print(f"hookd record: error: cannot run {command[0]}: {exc}", file=sys.stderr)
        returncode = 127
    finally:
        _stop(paths, options, recording, out)
    return returncode if returncode >= 0 else 128 - returncode


def _start(target: Installed, out: Path) -> tuple[DaemonPaths, StartOptions, str]:
    paths = daemon_paths(module_path(target.hooks))
    token = os.environ.get(TOKEN_ENV, "") if target.token_env else read_token(paths, create=True)
    if not token:
        raise RecordError(f"{TOKEN_ENV} is not set (the project settings send ${TOKEN_ENV})")
    options = StartOptions(daemon_port(paths, target.port), token, target.token_env)
    ensure_up(paths, options)
    recording = secrets.token_hex(16)
    reply = _post(paths, options, "/record/start", {"id": recording, "out": str(out)})
    if reply is None or reply.status != 200:
        raise RecordError(f"the daemon did not start the recording: {_why(reply)}")
    return paths, options, recording


def _stop(paths: DaemonPaths, options: StartOptions, recording: str, out: Path) -> None:
    reply = _post(paths, options, "/record/stop", {"id": recording})
    if reply is None or reply.status != 200:
        print(f"hookd record: warning: the recording did not stop cleanly: {_why(reply)}",
              file=sys.stderr)  # fmt: skip
        return
    answer = reply.json()
    count = answer.get("requests") if isinstance(answer, dict) else None
    print(f"hookd record: {count} hook requests recorded into {out}", file=sys.stderr)


def _post(
    paths: DaemonPaths, options: StartOptions, path: str, body: dict[str, str]
) -> Reply | None:
    """The daemon's answer; None when nothing answers or the answer lacks the daemon's proof."""
    nonce = challenge()
    try:
        reply = request(HOST, options.port, "POST", path, token=options.token,
                        body=json.dumps(body).encode(), challenge=nonce)  # fmt: skip
    except Unreachable:
        return None
    pid = ready_pid(paths, options.port)
    if pid is None or not proven(paths, reply, nonce, pid, options.port):
        return None
    return reply


def _why(reply: Reply | None) -> str:
    if reply is None:
        return "no daemon of the module answers (nothing, or a program that cannot prove it is)"
    return f"HTTP {reply.status}: {reply.body.decode(errors='replace').strip()[:300]}"
