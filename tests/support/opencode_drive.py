"""Drive the real OpenCode (``opencode-ai``) or Kilo CLI (``@kilocode/cli``) offline: one
``run "<prompt>"`` in a scratch project against a scripted fake Chat Completions model.

Both CLIs are Bun binaries of the same code (Kilo CLI is a fork): a project config names a
provider built on ``@ai-sdk/openai-compatible`` whose ``baseURL`` is the fake, and
``run PROMPT`` goes until the model stops calling tools. What differs is where each looks:

==========================  ===========================  ===========================
                            OpenCode                     Kilo CLI
==========================  ===========================  ===========================
project config              ``opencode.json``            ``kilo.json``
project plugins             ``.opencode/plugins/*.ts``   ``.kilo/plugins/*.ts``
user config folder          ``$XDG_CONFIG_HOME/opencode``  ``$XDG_CONFIG_HOME/kilo``
environment switches        ``OPENCODE_*``               ``KILO_*``
==========================  ===========================  ===========================

Offline: ``HOME`` and every ``XDG_*`` directory are in the scratch folder
(:class:`tests.daemon.support.Box`), the npm registry is a dead local port (each start with a
plugin folder runs an npm install of the plugin SDK: it fails at once instead of hanging), and
the model list, auto-update, sharing, LSP downloads and Kilo's code indexing are switched off.

The fake model runs a script of :data:`Step` s, one per model turn: a string is a command for the
client's shell tool (``bash``), a :class:`Call` calls any tool the client offers with the exact
arguments given (``write``, ``edit``, ``read``...). After the last step the model says ``done``.
Each run notes its wall time (:attr:`Run.seconds`): OpenCode takes about 8 s here, Kilo CLI 18 to
27 s (most of it its own start-up, on 2 cores).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from tests.daemon.support import Box
from tests.support.agent_clis import agent_cli
from tests.support.fake_chat import Answer, FakeChat, JsonObject, assistant_turns

__all__ = [
    "AGENTS",
    "FLAVORS",
    "Call",
    "Flavor",
    "Run",
    "ScriptedChat",
    "Step",
    "drive",
    "env_for",
    "write_config",
    "write_plugin",
]

#: A whole run: start-up (Kilo CLI's is long), a few tool calls, the last answer.
RUN_TIMEOUT_S: Final = 180.0
#: A registry nobody listens on: the CLIs' npm install of the plugin SDK fails at once.
DEAD_REGISTRY: Final = "http://127.0.0.1:9"
PROMPT: Final = "run the commands"
MODEL: Final = "fake-model"


@dataclass(frozen=True, slots=True)
class Flavor:
    """Where one of the two CLIs reads its project config and plugins, and its env prefix."""

    agent: str
    config: str  # the project config file
    plugins: str  # the project plugin folder
    prefix: str  # of its environment switches
    #: Extra switches: Kilo CLI indexes the project at start unless told it has no workspace.
    extra: Mapping[str, str] = field(default_factory=dict)

    def env(self) -> dict[str, str]:
        switches = ("DISABLE_MODELS_FETCH", "DISABLE_AUTOUPDATE", "DISABLE_LSP_DOWNLOAD",
                    "DISABLE_SHARE")  # fmt: skip
        return {**{f"{self.prefix}{name}": "1" for name in switches}, **self.extra}


FLAVORS: Final = {
    "opencode": Flavor("opencode", "opencode.json", ".opencode/plugins", "OPENCODE_"),
    "kilo": Flavor(
        "kilo",
        "kilo.json",
        ".kilo/plugins",
        "KILO_",
        {
            "KILO_DISABLE_CODEBASE_INDEXING": "vscode-no-workspace",
            "KILO_TELEMETRY_LEVEL": "off",
            "KILO_DISABLE_SESSION_INGEST": "1",
        },
    ),
}
AGENTS: Final = tuple(FLAVORS)


@dataclass(frozen=True, slots=True)
class Call:
    """One model turn calling ``tool`` with exactly ``args``."""

    tool: str
    args: JsonObject


#: A model turn: a shell command line, or a call of any tool.
Step = str | Call


class ScriptedChat(FakeChat):
    """:class:`FakeChat` whose turns may call any offered tool (:class:`Call`), not only the
    shell. A step whose tool the request does not offer (the title request offers none) is
    answered with the final text, as the plain fake does."""

    def __init__(
        self, steps: Sequence[Step], on_request: Callable[[JsonObject], None] | None = None
    ) -> None:
        super().__init__([s if isinstance(s, str) else "" for s in steps], on_request)
        self.steps = list(steps)

    def answer(self, request: JsonObject) -> Answer:
        turn = assistant_turns(request)
        step = self.steps[turn] if turn < len(self.steps) else None
        if not isinstance(step, Call):
            return super().answer(request)
        with self._lock:
            self._requests.append(request)
        if self.on_request is not None:
            self.on_request(request)
        offered = {t.get("function", {}).get("name") for t in request.get("tools") or []}
        if step.tool not in offered:
            return Answer("done")
        return Answer(tool=step.tool, arguments=dict(step.args))

    def calls(self) -> list[JsonObject]:
        """The tool calls the client's messages say the model made: ``{id, name, arguments}``."""
        seen: dict[str, JsonObject] = {}
        for request in self.requests:
            for message in request.get("messages") or []:
                for call in message.get("tool_calls") or []:
                    fn = call.get("function") or {}
                    made = {"id": call.get("id"), "name": fn.get("name"),
                            "arguments": fn.get("arguments")}  # fmt: skip
                    seen.setdefault(str(call.get("id")), made)
        return list(seen.values())


@dataclass(frozen=True)
class Run:
    """What one ``run`` left: its exit, output, wall time and what the model was sent."""

    agent: str
    exit_code: int
    stdout: str
    stderr: str
    seconds: float
    requests: list[JsonObject]
    tool_results: list[str]
    tool_names: list[str]


def write_config(box: Box, agent: str, base_url: str, **extra: object) -> Path:
    """The project config pointing ``agent`` at the fake model at ``base_url``."""
    flavor = FLAVORS[agent]
    config: JsonObject = {
        "$schema": "https://opencode.ai/config.json",
        "provider": {
            "fake": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Fake",
                "options": {"baseURL": base_url, "apiKey": "fake-key-0123"},
                "models": {MODEL: {"name": "Fake model"}},
            }
        },
        "model": f"fake/{MODEL}",
        "small_model": f"fake/{MODEL}",
        "autoupdate": False,
        "share": "disabled",
        **extra,
    }
    path = box.project / flavor.config
    box.project.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config, indent=2) + "\n")
    return path


def write_plugin(box: Box, agent: str, name: str, source: str) -> Path:
    """``source`` as the project plugin ``NAME`` of ``agent`` (its own plugin folder)."""
    folder = box.project / FLAVORS[agent].plugins
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(source)
    return path


def env_for(box: Box, agent: str, **extra: str) -> dict[str, str]:
    """The offline environment of one run: the box's HOME and XDG folders, no registry."""
    env = box.env()
    env.update(FLAVORS[agent].env())
    env["npm_config_registry"] = DEAD_REGISTRY
    env["npm_config_update_notifier"] = "false"
    env["npm_config_fetch_retries"] = "0"  # npm's default 2 retries wait 10 s, then 60 s
    if "TERM" in os.environ:
        env["TERM"] = os.environ["TERM"]
    env.update(extra)
    return env


def drive(
    box: Box,
    agent: str,
    steps: Sequence[Step],
    *,
    prompt: str = PROMPT,
    env: Mapping[str, str] | None = None,
    on_request: Callable[[JsonObject], None] | None = None,
    timeout: float = RUN_TIMEOUT_S,
    auto: bool = False,
) -> Run:
    """One ``AGENT run PROMPT`` in ``box.project`` against a fake model playing ``steps``.

    The project config is written anew for the fake's port; plugins already in the project's
    plugin folder (:func:`write_plugin`) are loaded. ``env`` adds to :func:`env_for`.
    ``auto`` passes ``--auto`` (approve every permission not denied by a rule): Kilo CLI asks
    for a shell command outside its allow list (``echo *``, ``ls *``...), and ``run`` rejects
    what it asks, then exits 1; OpenCode allows every tool by default.
    """
    binary = agent_cli(agent)
    with ScriptedChat(steps, on_request) as fake:
        write_config(box, agent, fake.base_url)
        started = time.monotonic()
        argv = [str(binary), "run", *(["--auto"] if auto else []), prompt]
        done = subprocess.run(
            argv, cwd=box.project, env=env_for(box, agent, **(env or {})),
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout, check=False,
        )  # fmt: skip
        seconds = time.monotonic() - started
        return Run(agent, done.returncode, done.stdout, done.stderr, round(seconds, 2),
                   fake.requests, fake.tool_results(), fake.tool_names())  # fmt: skip
