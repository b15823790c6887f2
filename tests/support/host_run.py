"""Running ``hookd run`` (as ``python -m hookd run``) in front of the real CLI, offline."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from tests.support.claude_cli import MODEL, cli_env
from tests.support.fake_anthropic import FakeAnthropic, message_texts
from tests.support.stream import StreamMessages

__all__ = ["HOOKS_DIR", "HostRun", "Recording", "bare_cli", "run_hookd"]

JsonObject = dict[str, Any]
HOOKS_DIR = Path(__file__).resolve().parent.parent / "hooks"
SESSION_TIMEOUT_S = 90.0
READ_BYTES = 1 << 16
ANONYMOUS_DIR = "/home/dev"


def bare_cli(binary: Path) -> list[str]:
    """The CLI command a user would type: hookd adds the stream-json flags itself."""
    return [str(binary), "--system-prompt", "", "--model", MODEL, "--permission-mode", "default"]


@dataclass
class HostRun(StreamMessages):
    """What one ``hookd run`` printed, and how it ended."""

    workdir: Path
    api: FakeAnthropic
    returncode: int | None = None
    stdout: bytes = b""
    messages: list[JsonObject] = field(default_factory=list)

    @property
    def stderr(self) -> str:
        return (self.workdir / "hookd-stderr.txt").read_text()

    @property
    def logs(self) -> list[JsonObject]:
        """hookd's JSON log lines (the CLI's own stderr lines are left out)."""
        out = []
        for line in self.stderr.splitlines():
            if line.startswith("{"):
                try:
                    out.append(json.loads(line))
                except ValueError:
                    continue
        return out

    def api_texts(self, index: int) -> list[str]:
        """Every text of the ``index``-th request the fake API received."""
        return message_texts(self.api.message_requests[index])


ReadStdout = Callable[[trio.abc.ReceiveStream, HostRun], Awaitable[None]]


async def read_all(stream: trio.abc.ReceiveStream, run: HostRun) -> None:
    """Read hookd's stdout to EOF as it comes."""
    chunks = []
    while data := await stream.receive_some(READ_BYTES):
        chunks.append(data)
    run.stdout = b"".join(chunks)


async def run_hookd(
    hooks: str,
    cli: Sequence[str],
    api: FakeAnthropic,
    workdir: Path,
    *,
    prompt: str | None = "go",
    args: Sequence[str] = (),
    stdin: bytes = b"",
    read_stdout: ReadStdout = read_all,
    record: Recording | None = None,
    launcher: Sequence[str] = (),
    popen: dict[str, Any] | None = None,
    extra_env: dict[str, str] | None = None,
    while_running: Callable[[trio.Process], Awaitable[None]] | None = None,
) -> HostRun:
    """Run ``hookd run --hooks tests/hooks/HOOKS -- CLI`` in ``workdir/project`` to exit.

    hookd's stderr (its JSON log and the CLI's stderr) goes to
    ``workdir/hookd-stderr.txt``. With ``record``, the run goes through
    ``hookd record --out RECORD``. ``launcher`` is put before ``python -m hookd``;
    ``popen`` goes to the process start; ``while_running`` runs beside the session
    (to signal hookd, say). Everything is killed if the run overruns.
    """
    project = workdir / "project"
    project.mkdir(exist_ok=True)
    env = cli_env(workdir / "home", api.base_url)
    env.pop("CLAUDE_CODE_SDK_READS_SESSION_STATE")  # hookd asks for it itself
    env.update(extra_env or {})
    if "PYTHONPATH" in os.environ:  # hookd is imported from where the tests import it
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    hook_file = str(HOOKS_DIR / hooks)
    options = [
        "--hooks",
        hook_file,
        "--log-level",
        "info",
        "--log-format",
        "json",
        *args,
    ]
    if prompt is not None:
        options += ["-p", prompt]
    argv = [*launcher, sys.executable, "-m", "hookd", "run", *options, "--", *cli]
    if record is not None:
        argv = [
            sys.executable,
            "-m",
            "hookd",
            "record",
            "--out",
            str(record.path),
            "--",
            *argv,
        ]
    run = HostRun(workdir, api)
    with (workdir / "hookd-stderr.txt").open("wb") as stderr:
        proc = await trio.lowlevel.open_process(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            cwd=project,
            env=env,
            **(popen or {}),
        )
        try:
            with trio.fail_after(SESSION_TIMEOUT_S):
                await _converse(proc, stdin, run, read_stdout, while_running)
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
    run.messages = [json.loads(line) for line in run.stdout.splitlines()]
    if record is not None:
        record.finish(workdir)
    return run


@dataclass(frozen=True)
class Recording:
    """Where to record a run (with ``hookd record``), and what its header says about it."""

    path: Path
    description: str
    requirements: tuple[str, ...]

    def finish(self, workdir: Path) -> None:
        """Describe the recording, and rewrite the run's temporary directory to ``/home/dev``.

        Requests and answers change alike, so the transcript still replays (the
        scenario hooks answer from their input only).
        """
        head, _, body = self.path.read_text().partition("\n")
        header = {
            **json.loads(head),
            "description": self.description,
            "requirements": list(self.requirements),
        }
        text = json.dumps(header) + "\n" + body.replace(str(workdir), ANONYMOUS_DIR)
        mangled = re.sub("[^A-Za-z0-9]", "-", str(workdir))  # how the CLI names project folders
        self.path.write_text(text.replace(mangled, ANONYMOUS_DIR.replace("/", "-")))


async def _converse(
    proc: trio.Process,
    stdin: bytes,
    run: HostRun,
    read: ReadStdout,
    beside: Callable[[trio.Process], Awaitable[None]] | None,
) -> None:
    assert proc.stdin is not None and proc.stdout is not None
    async with trio.open_nursery() as nursery:
        nursery.start_soon(read, proc.stdout, run)
        if beside is not None:
            nursery.start_soon(beside, proc)
        await proc.stdin.send_all(stdin)
        await proc.stdin.aclose()
        run.returncode = await proc.wait()
