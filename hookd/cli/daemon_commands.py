"""``hookd up``, ``down``, ``status`` and ``call``: the daemon seen from the command line.

Standard library only on the paths ``up`` and ``call`` take when the daemon
already runs: the hook API, trio and structlog are never imported here.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from hookd.daemon.client import CALL_DEADLINE_S, Incomplete, Reply, Unreachable, request
from hookd.daemon.fastcall import shim_failure
from hookd.daemon.lifecycle import (
    DaemonError,
    Squatted,
    StartOptions,
    daemon_port,
    ensure_up,
    stop,
)
from hookd.daemon.paths import (
    DaemonPaths,
    PathError,
    daemon_paths,
    module_path,
    read_json,
    read_token,
)
from hookd.daemon.probe import Running, alive, challenge, probe, proven, read_ready, ready_pid
from hookd.daemon.where import HOST, MIN_TOKEN_CHARS, RECORD_HEADER, RECORD_ID_ENV, TOKEN_ENV
from hookd.errors import HookdError

__all__ = ["call_main", "down_main", "status_main", "up_main"]


class CommandError(HookdError):
    pass


#: What ``hookd up`` cannot get past: its daemon's state, or a stranger on the port. Exit 2
#: (Claude Code blocks the prompt); anything else (a module that does not load) is exit 1.
_BLOCKING_FAILURES = (PathError, Squatted)


def _fail(command: str, message: object, code: int = 1) -> int:
    print(f"hookd {command}: error: {message}", file=sys.stderr)
    return code


def _token(paths: DaemonPaths, from_env: bool) -> str:
    if from_env:
        token = os.environ.get(TOKEN_ENV, "")
        if not token:
            raise CommandError(f"{TOKEN_ENV} is not set (the project settings send ${TOKEN_ENV})")
        if len(token) < MIN_TOKEN_CHARS:
            raise CommandError(
                f"{TOKEN_ENV} has {len(token)} characters, at least {MIN_TOKEN_CHARS} are "
                "needed (a random string, e.g. `openssl rand -hex 32`)"
            )
        return token
    stored = read_token(paths, create=True)
    assert stored is not None
    return stored


def _options(paths: DaemonPaths, args: argparse.Namespace) -> StartOptions:
    return StartOptions(
        port=daemon_port(paths, args.port),
        token=_token(paths, args.token_env),
        token_from_env=args.token_env,
        idle_exit_s=args.idle_exit,
        reload=args.reload,
        decision_log=args.decision_log,
        decision_args=decision_args(args),
        shadow=getattr(args, "shadow", False),
        otel_endpoint=getattr(args, "otel_endpoint", None),
    )


def decision_args(args: argparse.Namespace) -> tuple[str, ...]:
    """The decision log's bounds as ``hookd serve`` options (when given)."""
    out: list[str] = []
    if args.decision_log_max_bytes is not None:
        out += ["--decision-log-max-bytes", str(args.decision_log_max_bytes)]
    if args.decision_log_max_days is not None:
        out += ["--decision-log-max-days", repr(args.decision_log_max_days)]
    return tuple(out)


def up_main(args: argparse.Namespace) -> int:
    """Start the module's daemon unless it already answers; exit 0 once it does."""
    try:
        paths = daemon_paths(module_path(args.hooks))
        running, started = ensure_up(paths, _options(paths, args))
    except (PathError, DaemonError, CommandError) as exc:
        return _fail("up", exc, 2 if isinstance(exc, _BLOCKING_FAILURES) else 1)
    except OSError as exc:  # hookd's own state cannot be read or written
        return _fail("up", _state_error(exc), 2)
    if not args.quiet:
        how = "started" if started else "already running"
        print(f"hookd: {how}: pid {running.pid} on {HOST}:{running.port} serving {paths.module}")
    return 0


def call_main(args: argparse.Namespace) -> int:
    """Post stdin to the daemon as EVENT's input; answer as a Claude Code command hook."""
    body = sys.stdin.buffer.read().strip()
    try:
        paths = daemon_paths(module_path(args.hooks))
        options = _options(paths, args)
        ensure_up(paths, options)  # proven before the input goes anywhere
        deadline_s = CALL_DEADLINE_S if args.deadline is None else args.deadline
        reply = _post(paths, options, args.event, body, deadline_s)
    except (PathError, DaemonError, CommandError, Incomplete) as exc:
        return _shim_failure(args, str(exc))
    except OSError as exc:
        return _shim_failure(args, _state_error(exc))
    if reply is None:
        return _shim_failure(args, f"no daemon of {paths.module} answers on {HOST}:{options.port}")
    if reply.status != 200:
        detail = reply.body.decode(errors="replace").strip()[:500]
        return _shim_failure(args, f"the daemon answered HTTP {reply.status}: {detail}")
    sys.stdout.buffer.write(reply.body or b"{}")
    sys.stdout.flush()
    return 0


def _post(
    paths: DaemonPaths, options: StartOptions, event: str, body: bytes, deadline_s: float
) -> Reply | None:
    """The daemon's answer; None when nothing answers, or something that is not the module's
    daemon (it cannot prove the key) does; its answer is never used. :class:`Incomplete` when
    the answer is not whole within ``deadline_s`` (connect, request and answer)."""
    recording = os.environ.get(RECORD_ID_ENV)
    headers = ((RECORD_HEADER, recording),) if recording else ()
    nonce = challenge()
    try:
        reply = request(
            HOST, options.port, "POST", f"/hook/{event}", token=options.token, body=body,
            timeout_s=deadline_s, headers=headers, challenge=nonce,
        )  # fmt: skip
    except Incomplete:
        raise
    except Unreachable:
        return None
    pid = ready_pid(paths, options.port)
    if pid is None or not proven(paths, reply, nonce, pid, options.port):
        return None
    return reply


def _state_error(exc: OSError) -> str:
    """One line for hookd's own files being unusable: which, why, and what to do."""
    where = exc.filename or "hookd's state directory"
    return f"{where}: {exc.strerror or exc}; move it away (hookd makes it again)"


def _shim_failure(args: argparse.Namespace, message: str) -> int:
    return shim_failure(args.event, args.fail_open, message)


def _targets(hooks: str | None) -> list[DaemonPaths]:
    if hooks is not None:
        return [daemon_paths(module_path(hooks), create=False)]
    from hookd.daemon.here import running_modules  # not on `hookd call`'s path (subprocess)

    return [daemon_paths(module, create=False) for module in running_modules()]


def _project_targets() -> tuple[Path, list[DaemonPaths], int]:
    """The project the user is in, its modules' daemons, and how many others run."""
    from hookd.daemon.here import belongs, current_project, running_modules

    root = current_project()
    mine, others = [], 0
    for module in running_modules():
        paths = daemon_paths(module, create=False)
        if belongs(module, root):
            mine.append(paths)
        else:
            ready = read_ready(paths)  # a stale ready file is no daemon
            others += ready is not None and alive(ready[0])
    return root, mine, others


def down_main(args: argparse.Namespace) -> int:
    """Stop the module's daemon; without one, the daemons of the project the user is in
    (``--all``: every daemon)."""
    if args.hooks is not None and args.all:
        return _fail("down", "give HOOKS or --all, not both", 2)
    root: Path | None = None
    others = 0
    try:
        if args.hooks is None and not args.all:
            root, targets, others = _project_targets()
        else:
            targets = _targets(args.hooks)
    except PathError as exc:
        return _fail("down", exc)
    stopped, failed = _stop_each(targets)
    if not stopped and not failed:
        print(_none_stopped(root, others))
    return 1 if failed else 0


def _none_stopped(root: Path | None, others: int) -> str:
    if root is None:
        return "hookd: no daemon was running"
    if not others:
        return f"hookd: no daemon was running for {root}"
    them = "another daemon runs" if others == 1 else f"{others} other daemons run"
    return (
        f"hookd: no daemon was running for {root} ({them}, for other projects: "
        "`hookd down --all` stops every daemon)"
    )


def _stop_each(targets: list[DaemonPaths]) -> tuple[int, int]:
    """Stop each daemon, a line for each one stopped or failing; how many of each."""
    stopped, failed = 0, 0
    for paths in targets:
        try:
            pid = stop(paths)
        except (DaemonError, PathError) as exc:
            failed += _fail("down", f"{paths.module}: {exc}")
            continue
        except OSError as exc:
            failed += _fail("down", _state_error(exc))
            continue
        if pid is not None:
            stopped += 1
            print(f"hookd: stopped pid {pid} serving {paths.module}")
    return stopped, failed


def _for_agents(running: Running, paths: DaemonPaths, agents: list[str]) -> Running:
    """The status of ``agents`` only: their calls, and the hook files the install record
    names for them (``all``: every agent)."""
    wanted = set(agents)
    status = dict(running.status)
    calls = status.get("agents")
    if isinstance(calls, dict) and "all" not in wanted:
        status["agents"] = {a: row for a, row in calls.items() if a in wanted}
    left_out = status.get("unrouted")
    if isinstance(left_out, list) and "all" not in wanted:
        status["unrouted"] = [
            u for u in left_out if isinstance(u, dict) and u.get("agent") in wanted
        ]
    files = (read_json(paths.record) or {}).get("settings")
    status["configs"] = {
        name: found.get("agent", "claude")
        for name, found in (files.items() if isinstance(files, dict) else ())
        if isinstance(found, dict) and ("all" in wanted or found.get("agent", "claude") in wanted)
    }
    return Running(running.pid, running.port, status)


def _redacted(running: Running, paths: DaemonPaths) -> Running:
    """The status with what looks like a secret masked (the built-in patterns and those the
    module's decision log stored): a reload error or a quarantine's reason may quote an input."""
    import sqlite3

    from hookd.decision.store import StoreError, open_reader, redaction_patterns
    from hookd.redact import redactor_for

    patterns: list[str] = []
    try:
        conn = open_reader(str(paths.decisions))
        try:
            patterns = redaction_patterns(conn)
        finally:
            conn.close()
    except (StoreError, sqlite3.Error, OSError):
        pass  # no decision log: the built-in patterns
    try:
        redactor = redactor_for(patterns)
    except re.error:
        redactor = redactor_for()
    return Running(running.pid, running.port, redactor.value(running.status))


def _escaped(value: Any) -> Any:
    """Every string of ``value`` (decoded JSON, keys too) as a terminal may print it."""
    from hookd.redact import escape_controls

    if isinstance(value, str):
        return escape_controls(value)
    if isinstance(value, dict):
        return {_escaped(k): _escaped(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_escaped(v) for v in value]
    return value


def status_main(args: argparse.Namespace) -> int:
    """Print what each running daemon reports on ``GET /status``: redacted; for a human,
    with control characters escaped (``--json``: JSON's own escapes)."""
    from hookd.daemon.report import render
    from hookd.redact import escape_controls

    try:
        targets = _targets(args.hooks)
    except PathError as exc:
        return _fail("status", exc)
    found: list[Running] = []
    for paths in targets:
        token = os.environ.get(TOKEN_ENV) or read_token(paths) or ""
        running = probe(paths, token)
        if isinstance(running, Running):
            if args.agents:
                running = _for_agents(running, paths, args.agents)
            found.append(_redacted(running, paths))
        elif running == "token":
            print(f"hookd: {paths.module}: the daemon wants another token", file=sys.stderr)
    if args.json:
        print(json.dumps([r.status | {"port": r.port} for r in found], indent=2))
    elif found:
        text = "\n\n".join(render(_escaped(r.status), r.port) for r in found)
        print(escape_controls(text, multiline=True))
    else:
        print("hookd: no daemon is running" + (f" for {args.hooks}" if args.hooks else ""))
    return 0 if found or args.hooks is None else 3
