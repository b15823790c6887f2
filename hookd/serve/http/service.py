"""``hookd serve HOOKS --http [HOST:]PORT``: the process around the HTTP server.

Reads the token (``--token-file``, else ``$HOOKD_TOKEN``), loads the hooks,
listens, writes the ready file (``--ready-file``) once the port is known, and
serves until SIGTERM/SIGINT or ``--idle-exit``; then removes its ready file.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import structlog
import trio

from hookd import logs as hookd_log
from hookd.errors import HookdError
from hookd.serve.config import HttpServeOptions
from hookd.serve.http.answer import HttpAnswers
from hookd.serve.http.config import HttpConfig
from hookd.serve.http.exchange_log import recorder_from_env
from hookd.serve.http.gate import Gate
from hookd.serve.http.holder import RegistryHolder
from hookd.serve.http.server import HttpServer
from hookd.serve.http.session_record import SessionRecordings

__all__ = ["TOKEN_ENV", "parse_address", "read_token", "run_http", "write_ready_file"]

log = structlog.get_logger("hookd.http")

TOKEN_ENV: Final = "HOOKD_TOKEN"
#: The shortest token accepted from ``$HOOKD_TOKEN`` (a user types that one; hookd's own
#: token files hold 64 random hex digits).
MIN_TOKEN_CHARS: Final = 16
#: ``serve`` options a replay supplies itself: left out of a recording's ``serve_args``.
_OWN_OPTIONS: Final = ("--http", "--token-file", "--ready-file", "--idle-exit", "--proof-key-file")


class UsageError(HookdError):
    """A bad command line or environment: one line on stderr, exit 2."""


@dataclass(frozen=True, slots=True)
class Address:
    host: str
    port: int
    explicit: bool  # the user named the host


def parse_address(text: str) -> Address:
    """``PORT``, ``HOST:PORT`` or ``[V6]:PORT``; the host defaults to 127.0.0.1."""
    host, sep, port_text = text.rpartition(":")
    if not sep:
        host, port_text = "", text
    host = host.removeprefix("[").removesuffix("]")
    digits = port_text.isascii() and port_text.isdigit() and len(port_text) <= 5  # not '²'
    if not digits or int(port_text) > 65535:
        raise UsageError(f"--http: expected [HOST:]PORT with PORT 0-65535, got {text!r}")
    if host.lower() == "localhost":
        host = "127.0.0.1"
    if host:
        try:
            ipaddress.ip_address(host)
        except ValueError:
            raise UsageError(f"--http: HOST must be an IP address, got {host!r}") from None
    return Address(host or "127.0.0.1", int(port_text), bool(host))


def read_token(token_file: str | None) -> str:
    """The bearer token: the file's content (stripped), else ``$HOOKD_TOKEN``."""
    if token_file is not None:
        try:
            token = Path(token_file).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"--token-file: cannot read {token_file}: {exc}") from None
        if not token:
            raise UsageError(f"--token-file: {token_file} is empty")
        return token
    token = os.environ.get(TOKEN_ENV, "").strip()
    if not token:
        raise UsageError(f"--http needs a token: give --token-file FILE or set {TOKEN_ENV}")
    return _long_enough(token, f"${TOKEN_ENV}")


def _long_enough(token: str, where: str) -> str:
    if len(token) < MIN_TOKEN_CHARS:
        raise UsageError(
            f"{where}: the token has {len(token)} characters, at least {MIN_TOKEN_CHARS} "
            "are needed (a random string, e.g. `openssl rand -hex 32`)"
        )
    return token


def read_proof_key(path: str | None) -> bytes | None:
    """The proof key of ``--proof-key-file`` (its text, stripped), or None without one."""
    if path is None:
        return None
    try:
        key = Path(path).read_bytes().strip()
    except OSError as exc:
        raise UsageError(f"--proof-key-file: cannot read {path}: {exc.strerror}") from None
    if len(key) < MIN_TOKEN_CHARS:
        raise UsageError(f"--proof-key-file: {path} holds fewer than {MIN_TOKEN_CHARS} bytes")
    return key


def _warn_if_exposed(address: Address) -> None:
    if not ipaddress.ip_address(address.host).is_loopback:
        print(
            f"hookd serve: warning: listening on {address.host}, not a loopback address: "
            "other machines can reach this port (only the token keeps them out)",
            file=sys.stderr,
        )


def write_ready_file(path: str, fields: dict[str, object]) -> None:
    """Write ``fields`` as JSON to ``path`` atomically, mode 0600."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(fields, out)
        out.write("\n")
    os.replace(tmp, target)


def _remove_ready_file(path: str) -> None:
    """Remove the ready file if it is still this process's."""
    with contextlib.suppress(OSError, ValueError):
        if json.loads(Path(path).read_text(encoding="utf-8")).get("pid") == os.getpid():
            os.unlink(path)


def _serve_args(hooks: str | None) -> list[str]:
    """The options this process was started with, less the hooks and the replay's own."""
    argv = sys.argv[1:]
    rest = argv[argv.index("serve") + 1 :] if "serve" in argv else []
    if hooks in rest:
        rest.remove(hooks)
    out: list[str] = []
    skip = False
    for word in rest:
        if skip:
            skip = False
        elif word in _OWN_OPTIONS:
            skip = True
        elif not word.startswith(tuple(f"{o}=" for o in _OWN_OPTIONS)):
            out.append(word)
    return out


#: A task run beside the server for its lifetime, given the registry holder (hot reload).
Background = Callable[[RegistryHolder], Awaitable[None]]


def run_http(options: HttpServeOptions, background: Sequence[Background] = ()) -> int:
    """Run ``hookd serve --http``; the exit status. ``background`` tasks run beside it."""
    from hookd.serve.service import decision_log, load_registry

    hooks_spec = options.load.hooks
    try:
        address = parse_address(options.address)
        token = read_token(options.token_file)
        proof_key = read_proof_key(options.proof_key_file)
    except UsageError as exc:
        print(f"hookd serve: error: {exc}", file=sys.stderr)
        return 2
    try:
        registry = load_registry(options.load)
    except (HookdError, ValueError) as exc:
        print(f"hookd serve: error: {exc}", file=sys.stderr)
        return 1
    hookd_log.configure(options.log_level, options.log_format)
    _warn_if_exposed(address)
    is_file = hooks_spec is not None and hooks_spec.endswith(".py")
    module = str(Path(hooks_spec).resolve()) if hooks_spec and is_file else hooks_spec
    config = HttpConfig(
        host=address.host,
        port=address.port,
        max_body_bytes=options.max_body_bytes,
        max_connections=options.max_connections,
        max_unauthenticated=options.max_unauthenticated,
        header_timeout_s=options.header_timeout_s,
        auth_timeout_s=options.auth_timeout_s,
        idle_exit_s=options.idle_exit_s,
    )
    extra_hosts = (address.host,) if address.explicit else ()
    gate = Gate(token, extra_hosts=extra_hosts, proof_key=proof_key)
    hooks = HttpAnswers(RegistryHolder(registry, module), validate=options.validate)
    serve_args = _serve_args(hooks_spec)
    patterns = hooks.holder.redact_patterns  # the module's own, as reloads change them
    always = recorder_from_env(hooks_spec, serve_args, patterns)
    recorder = SessionRecordings(always, module, serve_args, patterns)
    server = HttpServer(hooks, gate, config, recorder=recorder)
    hooks.kernel.decisions = decision_log(options.decisions, module, options.otel_endpoint)
    try:
        error = _run_trio(server, options.ready_file, background, options.log_max_bytes)
    finally:
        recorder.close()
        if hooks.kernel.decisions is not None:
            hooks.kernel.decisions.close()
    if error is not None:
        reason = error.strerror or str(error)
        print(f"hookd serve: error: cannot listen on {options.address}: {reason}", file=sys.stderr)
        return 1
    return 0


def _run_trio(
    server: HttpServer,
    ready_file: str | None,
    background: Sequence[Background] = (),
    log_max_bytes: int | None = None,
) -> OSError | None:
    """Serve; the error if the listener could not be opened (a port in use)."""
    try:
        trio.run(_main, server, ready_file, background, log_max_bytes)
    except OSError as exc:
        return exc
    except BaseExceptionGroup as group:
        found, rest = group.split(OSError)
        if found is None or rest is not None:
            raise
        return _first(found)
    return None


def _first(group: BaseExceptionGroup[OSError]) -> OSError:
    found = group.exceptions[0]
    return _first(found) if isinstance(found, BaseExceptionGroup) else found


async def _main(
    server: HttpServer,
    ready_file: str | None,
    background: Sequence[Background] = (),
    log_max_bytes: int | None = None,
) -> None:
    """Serve until a signal or the idle exit; the ready file exists while serving."""
    hookd_log.attach()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_watch_signals, nursery.cancel_scope)
        for task in background:
            nursery.start_soon(task, server.hooks.holder)
        if log_max_bytes is not None:
            hookd_log.rotate_at(log_max_bytes)
        port = await nursery.start(_serve_then_stop, server, nursery.cancel_scope)
        server.gate.listening(port)
        if ready_file is not None:
            # the port is held (a second descriptor of each listening socket) until the ready
            # file is gone, however the listeners close: while the file names this process,
            # no other program can listen there
            held = [os.dup(fd) for fd in server.listening_fds]
            write_ready_file(ready_file, _ready_fields(server, port))
            nursery.start_soon(_remove_at_exit, ready_file, held)
        log.info("http.ready", host=server.config.host, port=port, ready_file=ready_file)


async def _serve_then_stop(
    server: HttpServer, scope: trio.CancelScope, *, task_status: trio.TaskStatus[int]
) -> None:
    await server.serve(task_status=task_status)
    scope.cancel()  # the idle exit ended it


async def _remove_at_exit(ready_file: str, held: list[int]) -> None:
    """At exit, remove the ready file, then let go of the port."""
    try:
        await trio.sleep_forever()
    finally:
        _remove_ready_file(ready_file)
        for fd in held:
            os.close(fd)


def _ready_fields(server: HttpServer, port: int) -> dict[str, object]:
    """pid first (``hookd up``'s fast path reads it without a JSON parser), then when this
    process started, which the agent shim compares with ``/proc/PID/stat`` (a pid of a
    daemon killed without cleaning up may be another process's by now)."""
    started = _start_ticks()
    return {
        "pid": os.getpid(),
        **({"start_ticks": started} if started is not None else {}),
        "host": server.config.host,
        "port": port,
        "module": server.hooks.holder.module,
        "started": server.started,
    }


def _start_ticks() -> int | None:
    """This process's start time, in clock ticks after boot: field 22 of ``/proc/self/stat``
    (:func:`hookd.daemon.where.start_ticks` reads it for any pid); None without /proc."""
    try:
        with open("/proc/self/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[19]) if len(fields) > 19 and fields[19].isdigit() else None


async def _watch_signals(scope: trio.CancelScope) -> None:
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for signum in signals:
            log.info("service.signal", signal=signal.Signals(signum).name)
            scope.cancel()
            return
