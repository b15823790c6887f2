"""One print-mode session of the real Claude Code CLI, configured only by the settings files
that ``hookd install`` wrote into a private project, offline against the fake API."""

from __future__ import annotations

import json
import queue
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from tests.daemon.support import Box, hookd
from tests.support.claude_cli import MODEL, cli_args, cli_env, user_message
from tests.support.fake_anthropic import FakeAnthropic, Script, message_texts
from tests.support.stream import StreamMessages

__all__ = ["HOOKS_DIR", "CliRun", "installed", "run_cli", "run_cli_prompts", "stream_of"]

HOOKS_DIR = Path(__file__).resolve().parents[1] / "hooks"
SESSION_TIMEOUT_S = 120.0
JsonObject = dict[str, Any]


@dataclass
class CliRun(StreamMessages):
    """What one CLI session printed and what the fake API received."""

    returncode: int
    messages: list[JsonObject]
    stderr: str
    api: FakeAnthropic

    def tool_result_text(self, index: int) -> str:
        content = self.tool_results()[index]["content"]
        if isinstance(content, list):
            return "\n".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
        return str(content)

    def api_texts(self, index: int) -> list[str]:
        return message_texts(self.api.message_requests[index])

    def all_api_texts(self) -> str:
        return "\n".join(t for r in self.api.message_requests for t in message_texts(r))


def stream_of(run: CliRun) -> str:
    """The session's stdout as one string (for failure messages)."""
    return "\n".join(json.dumps(m) for m in run.messages)


@contextmanager
def installed(
    box: Box, module: str, *args: str, env: dict[str, str] | None = None
) -> Iterator[Path]:
    """Copy ``tests/hooks/MODULE`` to ``.claude/hooks.py``, ``hookd install`` it; ``hookd down``
    at the end, whatever happens."""
    target = box.project / ".claude" / "hooks.py"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(HOOKS_DIR / module, target)
    try:
        done = hookd(box, "install", ".claude/hooks.py", *args, env=env)
        assert done.returncode == 0, done.stderr
        yield target
    finally:
        hookd(box, "down", env=env)


def cli_environment(box: Box, api: FakeAnthropic, **extra: str) -> dict[str, str]:
    """The CLI's environment: the fake API, and the box's HOME and XDG directories (which the
    hook commands it runs inherit)."""
    env = cli_env(box.home, api.base_url)
    return {**env, **box.env(), **extra}


def run_cli(
    claude: Path,
    box: Box,
    script: Script,
    *,
    prompt: str = "go",
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> CliRun:
    """Run ``claude -p PROMPT`` in the box's project (or ``cwd``) until it exits."""
    with FakeAnthropic(script) as api:
        argv = [
            str(claude), "-p", prompt,
            "--output-format", "stream-json", "--verbose", "--include-hook-events",
            "--system-prompt", "", "--model", MODEL, "--permission-mode", "default",
            "--debug-file", str(box.root / "cli-debug.txt"),
        ]  # fmt: skip
        done = subprocess.run(
            argv,
            cwd=cwd or box.project,
            env={**cli_environment(box, api), **(env or {})},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=SESSION_TIMEOUT_S,
            check=False,
        )
    messages = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return CliRun(done.returncode, messages, done.stderr, api)


def run_cli_prompts(
    claude: Path,
    box: Box,
    script: Script,
    prompts: Sequence[str],
    between: Callable[[int], None],
) -> CliRun:
    """One stream-json session submitting ``prompts`` one after another; ``between(n)`` runs
    after prompt ``n`` has its result and before the next one is sent."""
    with FakeAnthropic(script) as api:
        argv = [*cli_args(claude), "--debug-file", str(box.root / "cli-debug.txt")]
        proc = subprocess.Popen(
            argv, cwd=box.project, env=cli_environment(box, api), stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=_read_lines, args=(proc.stdout, lines), daemon=True).start()
        messages: list[JsonObject] = []
        try:
            for n, prompt in enumerate(prompts):
                if n:
                    between(n - 1)
                proc.stdin.write(json.dumps(user_message(prompt)) + "\n")
                proc.stdin.flush()
                messages += _until_result(lines)
            proc.stdin.close()
            returncode = proc.wait(timeout=SESSION_TIMEOUT_S)
        finally:
            proc.kill()
        stderr = proc.stderr.read()
    return CliRun(returncode, messages, stderr, api)


def _read_lines(stream: IO[str], lines: queue.Queue[str]) -> None:
    for line in stream:
        lines.put(line)


def _until_result(lines: queue.Queue[str]) -> list[JsonObject]:
    out: list[JsonObject] = []
    while not out or out[-1].get("type") != "result":
        line = lines.get(timeout=SESSION_TIMEOUT_S)
        if line.startswith("{"):
            out.append(json.loads(line))
    return out
