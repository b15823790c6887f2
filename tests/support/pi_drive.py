"""Drive the pinned pi (``@mariozechner/pi-coding-agent``) offline against a scripted fake model.

pi reads its models from ``~/.pi/agent/models.json``; a scratch HOME holds one naming a
provider ``fake`` (OpenAI Chat Completions, ``api: "openai-completions"``) at the fake's URL,
and ``pi -p --provider fake --model fake-model PROMPT`` runs one prompt to its end and exits.
Project extensions are the ``*.ts`` files in ``<project>/.pi/extensions/`` (loaded with no
prompt in ``-p`` mode); :func:`drive` writes the ones it is given there.

The model is :class:`ScriptedChat`: one step per model turn, each a shell command (pi's
``bash`` tool) or any tool call ``(name, arguments)`` (pi's ``read``, ``write``, ``edit``...),
then the text ``done``. Every request the model got is kept: the tool results pi sends back
are where a block's reason shows up.

A run takes about 3 s of wall time on this machine (Node start-up and the extension loader),
most of it before the first model request: :attr:`PiRun.seconds` says how long each took.

Run by hand: ``python -m tests.support.pi_drive 'echo hi > a.txt'`` prints what one run did.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.agent_clis import agent_cli
from tests.support.fake_chat import (
    FINAL_TEXT,
    Answer,
    FakeChat,
    JsonObject,
    assistant_turns,
    shell_arguments,
    shell_tool,
)

__all__ = ["MODEL", "PROVIDER", "PiBox", "PiRun", "ScriptedChat", "Step", "drive", "pi_env"]

PROVIDER = "fake"
MODEL = "fake-model"
#: One whole run: Node start-up, a few model turns, the tools.
RUN_TIMEOUT_S = 120.0
#: A step: a shell command for pi's ``bash`` tool, or a tool name and its arguments.
Step = str | tuple[str, JsonObject]


class ScriptedChat(FakeChat):
    """:class:`FakeChat` whose turns may call any tool: a ``str`` step runs through the
    client's shell tool, a ``(name, arguments)`` step calls that tool as given."""

    def __init__(self, steps: Sequence[Step]) -> None:
        super().__init__([s if isinstance(s, str) else "" for s in steps])
        self.steps = list(steps)

    def answer(self, request: JsonObject) -> Answer:
        with self._lock:
            self._requests.append(request)
        turn = assistant_turns(request)
        if not request.get("tools") or turn >= len(self.steps):
            return Answer(FINAL_TEXT)
        step = self.steps[turn]
        if isinstance(step, tuple):
            return Answer(tool=step[0], arguments=step[1])
        function = shell_tool(request)
        if function is None:
            return Answer(FINAL_TEXT)
        return Answer(tool=function["name"], arguments=shell_arguments(function, step))

    def tool_messages(self) -> list[JsonObject]:
        """Every distinct tool result message pi sent back (``tool_call_id``, ``content``)."""
        seen: dict[str, JsonObject] = {}
        for request in self.requests:
            for message in request.get("messages") or []:
                if message.get("role") == "tool":
                    seen.setdefault(str(message.get("tool_call_id")), message)
        return list(seen.values())


@dataclass(frozen=True)
class PiBox:
    """A scratch HOME and project for pi, under ``root``."""

    root: Path

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def project(self) -> Path:
        return self.root / "project"

    @property
    def extensions(self) -> Path:
        """The project's extension folder (``.pi/extensions``)."""
        return self.project / ".pi" / "extensions"

    @property
    def agent_dir(self) -> Path:
        """pi's own state: ``~/.pi/agent`` (models.json, sessions/)."""
        return self.home / ".pi" / "agent"

    def make(self) -> PiBox:
        for folder in (self.agent_dir, self.project):
            folder.mkdir(parents=True, exist_ok=True)
        return self

    def point_at(self, base_url: str) -> None:
        """``~/.pi/agent/models.json``: the provider ``fake`` at ``base_url`` (ending in /v1)."""
        models = {
            "providers": {
                PROVIDER: {
                    "baseUrl": base_url,
                    "api": "openai-completions",
                    "apiKey": "fake-key",
                    # pi would send a "developer" role and a reasoning effort otherwise
                    "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
                    "models": [{"id": MODEL}],
                }
            }
        }
        (self.agent_dir / "models.json").write_text(json.dumps(models, indent=1))

    def add_extension(self, name: str, source: str) -> Path:
        """Write ``.pi/extensions/NAME`` (a ``.ts`` file pi loads at start-up)."""
        self.extensions.mkdir(parents=True, exist_ok=True)
        path = self.extensions / name
        path.write_text(source)
        return path


def pi_env(box: PiBox, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of an offline run: the scratch HOME, no network at start-up, no
    version check or telemetry, and none of the caller's API keys."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(box.home),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "PI_OFFLINE": "1",
        "PI_SKIP_VERSION_CHECK": "1",
        "PI_TELEMETRY": "0",
    }
    env.update(extra or {})
    return env


@dataclass
class PiRun:
    """What one ``pi -p`` run did."""

    box: PiBox
    returncode: int
    stdout: str
    stderr: str
    seconds: float  # wall time of the pi process
    requests: list[JsonObject] = field(default_factory=list)  # the model requests, in order
    tool_messages: list[JsonObject] = field(default_factory=list)

    @property
    def tool_results(self) -> list[str]:
        """The text of each tool result the model saw, in order."""
        return [_text(m.get("content")) for m in self.tool_messages]

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p["text"] for p in content if isinstance(p, dict) and "text" in p)
    return ""


def drive(
    steps: Sequence[Step],
    *,
    box: PiBox | None = None,
    extensions: Mapping[str, str] | None = None,
    prompt: str = "run the steps",
    args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    timeout: float = RUN_TIMEOUT_S,
) -> PiRun:
    """One ``pi -p`` run in ``box`` (a new temporary one when None) against a fake model
    scripted with ``steps``; ``extensions`` (file name -> TypeScript source) are written to
    the project's ``.pi/extensions/`` first. ``args`` go before the prompt; ``env`` is added
    to :func:`pi_env`'s."""
    box = (box or PiBox(Path(tempfile.mkdtemp(prefix="pi-drive-")))).make()
    for name, source in (extensions or {}).items():
        box.add_extension(name, source)
    argv = [str(agent_cli("pi")), "-p", "--provider", PROVIDER, "--model", MODEL, *args, prompt]
    with ScriptedChat(steps) as fake:
        box.point_at(fake.base_url)
        started = time.monotonic()
        done = subprocess.run(
            argv, cwd=box.project, env=pi_env(box, env), stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=timeout, check=False,
        )  # fmt: skip
        seconds = time.monotonic() - started
        return PiRun(
            box, done.returncode, done.stdout, done.stderr, seconds, fake.requests,
            fake.tool_messages(),
        )  # fmt: skip


def main(argv: Sequence[str]) -> int:
    """Run pi once with the commands given as shell steps; print what it did."""
    run = drive(argv or ["echo hello from pi"])
    print(f"exit {run.returncode} in {run.seconds:.2f}s, {len(run.requests)} model requests")
    print(f"stdout: {run.stdout.strip()!r}\nstderr: {run.stderr.strip()[-400:]!r}")
    for text in run.tool_results:
        print(f"tool result: {text!r}")
    return run.returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
