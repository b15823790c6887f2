"""``hookd record``: run a command and tee its protocol traffic into a transcript.

Two ways, chosen with ``--via`` (default ``auto``):

* ``proxy``: COMMAND speaks the protocol on its stdio (``hookd serve HOOKS``).
  The recorder stands between its own stdio and COMMAND's, passing every byte
  through unchanged and writing each line to the transcript. A CLI configured
  to spawn ``hookd record --out FILE -- hookd serve HOOKS`` is recorded as is.
* ``env``: COMMAND is a CLI that spawns ``hookd serve`` itself. The recorder
  sets ``HOOKD_RECORD=FILE`` for it, and ``hookd serve`` records its own session.

``auto`` picks ``proxy`` when COMMAND is a ``hookd serve`` invocation, else ``env``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import trio

from hookd.transcript.format import RECORD_ENV, hooks_reference, tee_streams

__all__ = ["add_record_parser", "record_env", "record_main", "record_proxy", "serve_invocation"]

CHUNK_BYTES: Final = 256 * 1024


def serve_invocation(command: Sequence[str]) -> list[str] | None:
    """The arguments after ``serve`` when ``command`` runs ``hookd serve``; else None."""
    if not command:
        return None
    name = Path(command[0]).name
    if name == "hookd":
        rest = list(command[1:])
    elif name.startswith("python") and list(command[1:3]) == ["-m", "hookd"]:
        rest = list(command[3:])
    else:
        return None
    return rest[1:] if rest[:1] == ["serve"] else None


def proxy_header(command: Sequence[str], out: Path) -> dict[str, Any]:
    """The transcript header for a proxied command: its hooks and serve options if known."""
    header: dict[str, Any] = {
        "mode": "sidecar",
        "description": "recorded by hookd record: " + " ".join(command),
    }
    args = serve_invocation(command)
    if args is None:
        return header
    from hookd.cli.main import build_parser

    parsed, _unknown = build_parser().parse_known_args(["serve", *args])
    hooks = str(parsed.hooks)
    rest = list(args)
    rest.remove(hooks)
    header["hooks"] = hooks_reference(hooks, out.parent)
    header["serve_args"] = rest or None
    return header


# --------------------------------------------------------------------------- proxy


def record_proxy(command: Sequence[str], out: str | Path) -> int:
    """Run ``command`` between this process's stdio and a transcript; its exit status."""
    out = Path(out)
    header = proxy_header(command, out)
    fd_in, fd_out = os.dup(0), os.dup(1)
    try:
        return trio.run(_proxy, list(command), out, header, fd_in, fd_out)
    finally:
        for fd in (fd_in, fd_out):
            with contextlib.suppress(OSError):
                os.set_blocking(fd, True)
                os.close(fd)


async def _proxy(
    command: list[str], out: Path, header: dict[str, Any], fd_in: int, fd_out: int
) -> int:
    proc = await trio.lowlevel.open_process(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    receive, send = tee_streams(
        trio.lowlevel.FdStream(fd_in), trio.lowlevel.FdStream(fd_out), out, header
    )
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_forward_signals, proc)
        nursery.start_soon(_pump, receive, proc.stdin)
        await _pump(proc.stdout, send)
        await proc.wait()
        nursery.cancel_scope.cancel()
    for stream in (receive, send):
        with contextlib.suppress(trio.BrokenResourceError, OSError):
            await stream.aclose()
    return _exit_status(proc.returncode)


async def _pump(source: trio.abc.ReceiveStream, sink: trio.abc.SendStream) -> None:
    """Copy ``source`` to ``sink`` until EOF, then close ``sink``."""
    with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
        while data := await source.receive_some(CHUNK_BYTES):
            await sink.send_all(data)
    with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
        await sink.aclose()


async def _forward_signals(proc: trio.Process) -> None:
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for signum in signals:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signum)


def _exit_status(returncode: int | None) -> int:
    if returncode is None:
        return 1
    return 128 - returncode if returncode < 0 else returncode


# ----------------------------------------------------------------------------- env


def record_env(command: Sequence[str], out: str | Path) -> int:
    """Run ``command`` with ``HOOKD_RECORD`` set, so the ``hookd serve`` it starts records."""
    env = {**os.environ, RECORD_ENV: str(Path(out).resolve())}
    try:
        return _exit_status(subprocess.run(list(command), env=env, check=False).returncode)
    except OSError as exc:
        print(f"hookd record: error: cannot run {command[0]}: {exc}", file=sys.stderr)
        return 127


# ----------------------------------------------------------------------------- CLI

DESCRIPTION = """\
Run COMMAND and record the protocol traffic into a transcript that
`hookd replay` can play back (e.g. in CI).

  --via proxy   COMMAND speaks the protocol on stdio (`hookd serve HOOKS`): the
                recorder sits between its own stdio and COMMAND's and tees both
                directions. Configure the CLI to spawn
                `hookd record --out FILE -- hookd serve HOOKS`.
  --via env     COMMAND is a CLI that spawns `hookd serve` itself: the recorder
                sets HOOKD_RECORD=FILE and hookd serve records its own session
                ({pid} in FILE becomes each server's process id).
  --via auto    proxy for a `hookd serve` command, env otherwise (default).

The exit status is COMMAND's.
"""

EPILOG = """\
examples:
  hookd record --out session.jsonl -- hookd serve hooks.py
  hookd record --out session.jsonl -- my-cli --hooks-sidecar "hookd serve hooks.py"
  hookd replay session.jsonl
"""


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True, metavar="FILE", help="transcript to write")
    p.add_argument(
        "--via",
        choices=["auto", "proxy", "env"],
        default="auto",
        help="how to record (see above; default: auto)",
    )
    p.add_argument("command", nargs=argparse.REMAINDER, metavar="-- COMMAND ...")


def add_record_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``record`` subcommand to a ``hookd`` subparsers object."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "record",
        help="run a command and record its protocol traffic into a transcript",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_arguments(p)
    return p


def record_main(args: argparse.Namespace) -> int:
    """Run ``hookd record`` with parsed arguments; COMMAND's exit status."""
    command = list(args.command)
    if command[:1] == ["--"]:
        command = command[1:]
    if not command:
        print(
            "hookd record: error: no COMMAND (hookd record --out FILE -- COMMAND)", file=sys.stderr
        )
        return 2
    folder = Path(args.out).parent
    if not (folder.is_dir() and os.access(folder, os.W_OK)):
        print(
            f"hookd record: error: cannot write {args.out}: {folder} is not a writable folder",
            file=sys.stderr,
        )
        return 2
    via = args.via
    if via == "auto":
        via = "proxy" if serve_invocation(command) is not None else "env"
    return record_proxy(command, args.out) if via == "proxy" else record_env(command, args.out)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m hookd.transcript.record``."""
    parser = argparse.ArgumentParser(
        prog="hookd record",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_arguments(parser)
    return record_main(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
