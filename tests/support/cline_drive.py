"""Drive the pinned Cline CLI (``cline`` 3.0.65) offline, against a scripted fake model.

Cline speaks OpenAI Chat Completions to an ``openai`` provider with a base URL, so the
server of :mod:`tests.support.fake_chat` serves it; only the answers differ: Cline's shell
tool is ``run_commands`` with ``{"commands": [...]}``, its file tools ``editor``
(``{path, old_text?, new_text, insert_line?}``: creates a missing file) and ``read_files``
(``{files: [{path, start_line?, end_line?}]}``), which that fake cannot fill from a schema.
:class:`ScriptedChat` answers the N-th model request with the N-th :class:`Step` (a tool
call with the exact arguments given, or a text), then ``done``.

:func:`run_cline` builds a scratch world under ``root``: ``home/`` (``$HOME``: Cline's
``~/.cline``, its user hooks folder ``~/.cline/hooks``), ``project/`` (the working
directory; its hooks go in ``project/.clinerules/hooks``) and ``data/`` (``--data-dir``:
the provider settings, sessions, ``logs/cline.log``). It writes the provider settings that
``cline auth -p openai -k sk-x -m fake-model -b URL --data-dir D`` writes (the same file,
without the 5 s that command costs; ``use_auth=True`` runs the command instead), then runs
``cline --data-dir D --json -P openai -m fake-model PROMPT`` and gives back the exit code,
the ``--json`` lines, the model requests and the wall time.

Measured here (2 cores): a run of one to three tool calls takes 5-7 s of wall time on a quiet
machine, 8-20 s on a loaded one, almost all of it Cline's start (``run_result.durationMs``, the
run itself, was 0.5-2 s); ``cline auth`` costs another 5 s.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.agent_clis import agent_cli
from tests.support.fake_chat import Answer, FakeChat, JsonObject, assistant_turns

__all__ = [
    "ClineRun",
    "ScriptedChat",
    "Step",
    "edit",
    "read",
    "run_cline",
    "say",
    "shell",
    "write_hook",
]

MODEL = "fake-model"
PROVIDER = "openai-compatible"  # what `cline auth -p openai` stores
_RUN_TIMEOUT_S = 180.0


@dataclass(frozen=True)
class Step:
    """One model turn: a call of ``tool`` with ``arguments`` as given, or a ``text``."""

    tool: str | None = None
    arguments: JsonObject | None = None
    text: str = ""


def shell(*commands: str) -> Step:
    """A ``run_commands`` call."""
    return Step("run_commands", {"commands": list(commands)})


def edit(path: str, new_text: str, old_text: str | None = None) -> Step:
    """An ``editor`` call: creates ``path`` with ``new_text`` when it is missing, or replaces
    ``old_text`` by ``new_text`` in it."""
    arguments: JsonObject = {"path": path, "new_text": new_text}
    if old_text is not None:
        arguments["old_text"] = old_text
    return Step("editor", arguments)


def read(*paths: str) -> Step:
    """A ``read_files`` call."""
    return Step("read_files", {"files": [{"path": p} for p in paths]})


def say(text: str) -> Step:
    return Step(text=text)


class ScriptedChat(FakeChat):
    """The fake Chat Completions server, answering with the scripted steps in order.

    A step whose tool the request does not offer is answered with a text naming it (the
    run then ends), so a renamed tool shows up in the test rather than hanging it.
    """

    def __init__(self, steps: Sequence[Step]) -> None:
        super().__init__([])
        self.steps = list(steps)

    def answer(self, request: JsonObject) -> Answer:
        super().answer(request)  # records the request
        turn = assistant_turns(request)
        if turn >= len(self.steps):
            return Answer("done")
        step = self.steps[turn]
        if step.tool is None:
            return Answer(step.text or "done")
        offered = {
            t["function"]["name"]
            for t in request.get("tools") or []
            if isinstance(t, dict) and isinstance(t.get("function"), dict)
        }
        if step.tool not in offered:
            return Answer(f"fake model: tool {step.tool} is not offered")
        return Answer(tool=step.tool, arguments=dict(step.arguments or {}))

    def tool_messages(self) -> list[JsonObject]:
        """Every distinct ``tool`` message Cline sent back (content as the model sees it)."""
        seen: dict[str, JsonObject] = {}
        for request in self.requests:
            for message in request.get("messages") or []:
                if message.get("role") == "tool":
                    seen.setdefault(str(message.get("tool_call_id")), message)
        return list(seen.values())

    def user_texts(self) -> list[str]:
        """The text of every distinct user message (hook context arrives as one)."""
        out: list[str] = []
        for request in self.requests:
            for message in request.get("messages") or []:
                if message.get("role") != "user":
                    continue
                text = _text(message.get("content"))
                if text not in out:
                    out.append(text)
        return out


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part["text"] for part in content if isinstance(part, dict) and "text" in part
        )
    return ""


@dataclass
class ClineRun:
    """What one run left behind."""

    exit_code: int
    lines: list[JsonObject]  # the --json lines that parsed
    stdout: str
    stderr: str
    requests: list[JsonObject]  # the model requests, in order
    tool_results: list[str]  # the text of each tool result the model was sent
    user_texts: list[str]  # each distinct user message (hook_context blocks among them)
    wall_s: float
    root: Path
    timed_out: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def project(self) -> Path:
        return self.root / "project"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def data(self) -> Path:
        return self.root / "data"

    def hook_events(self) -> list[str]:
        """The ``hookEventName`` of each ``hook_event`` line (``agent_start``, ``tool_call``,
        ``tool_result``, ``agent_end``, ...): the lifecycle points, not the hook files run."""
        return [str(x.get("hookEventName")) for x in self.lines if x.get("type") == "hook_event"]

    def result(self) -> JsonObject | None:
        """The closing ``run_result`` line (``finishReason``: ``completed``, ``aborted``...)."""
        return next((x for x in reversed(self.lines) if x.get("type") == "run_result"), None)

    def log(self) -> str:
        """Cline's own log (``data/logs/cline.log``), where a hook's failure is written."""
        path = self.data / "logs" / "cline.log"
        return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""


def write_hook(folder: Path, name: str, text: str, *, executable: bool = True) -> Path:
    """A hook file ``folder/name`` (``PreToolUse``, ``PreToolUse.py``, ...) with ``text``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755 if executable else 0o644)
    return path


def provider_settings(base_url: str) -> JsonObject:
    """The ``settings/providers.json`` that ``cline auth -p openai ...`` writes."""
    return {
        "version": 1,
        "lastUsedProvider": PROVIDER,
        "modes": {},
        "providers": {
            PROVIDER: {
                "settings": {"provider": PROVIDER, "apiKey": "sk-x", "model": MODEL,
                             "baseUrl": base_url},
                "updatedAt": "2026-01-01T00:00:00.000Z",
                "tokenSource": "manual",
            }
        },
    }  # fmt: skip


def scratch_env(root: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A minimal environment: HOME in the scratch folder, nothing of the caller's Cline."""
    env = {
        "HOME": str(root / "home"),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "TMPDIR": str(root / "tmp"),
        "NO_COLOR": "1",
    }
    env.update(extra or {})
    return env


def run_cline(
    prompt: str,
    steps: Sequence[Step],
    root: Path,
    *,
    hooks: Mapping[str, str] | None = None,
    user_hooks: Mapping[str, str] | None = None,
    env: Mapping[str, str] | None = None,
    args: Sequence[str] = (),
    use_auth: bool = False,
    timeout_s: float = _RUN_TIMEOUT_S,
) -> ClineRun:
    """Run Cline once in ``root`` (made if missing) with the scripted model.

    ``hooks`` are written to ``project/.clinerules/hooks/<name>`` and ``user_hooks`` to
    ``home/.cline/hooks/<name>``, executable; ``args`` go before the prompt. A prompt of one
    word is refused: Cline takes it for a subcommand ("Unknown command or unquoted prompt").
    """
    if len(prompt.split()) < 2:
        raise ValueError(f"cline reads the one-word prompt {prompt!r} as a subcommand")
    cline = str(agent_cli("cline"))
    for sub in ("home", "project", "data", "tmp"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    for name, text in (hooks or {}).items():
        write_hook(root / "project" / ".clinerules" / "hooks", name, text)
    for name, text in (user_hooks or {}).items():
        write_hook(root / "home" / ".cline" / "hooks", name, text)
    run_env = scratch_env(root, env)
    data = root / "data"
    with ScriptedChat(steps) as fake:
        if use_auth:
            subprocess.run(
                [cline, "auth", "-p", "openai", "-k", "sk-x", "-m", MODEL, "-b", fake.base_url,
                 "--data-dir", str(data)],
                env=run_env, cwd=root / "project", capture_output=True, check=True,
                timeout=timeout_s, stdin=subprocess.DEVNULL,
            )  # fmt: skip
        else:
            settings = data / "settings" / "providers.json"
            settings.parent.mkdir(parents=True, exist_ok=True)
            settings.write_text(json.dumps(provider_settings(fake.base_url)), encoding="utf-8")
        command = [cline, "--data-dir", str(data), "--json", "-P", "openai", "-m", MODEL,
                   *args, prompt]  # fmt: skip
        started = time.monotonic()
        timed_out = False
        try:
            done = subprocess.run(
                command, env=run_env, cwd=root / "project", capture_output=True, check=False,
                timeout=timeout_s, stdin=subprocess.DEVNULL,
            )  # fmt: skip
            code, out, err = done.returncode, done.stdout, done.stderr
        except subprocess.TimeoutExpired as exc:
            timed_out, code = True, -9
            out, err = exc.stdout or b"", exc.stderr or b""
        wall = time.monotonic() - started
        requests = fake.requests
        results = [_text(m.get("content")) for m in fake.tool_messages()]
        users = fake.user_texts()
    text = out.decode(errors="replace")
    lines: list[JsonObject] = []
    for line in text.splitlines():
        try:
            parsed = json.loads(line)
        except ValueError:
            continue
        if isinstance(parsed, dict):
            lines.append(parsed)
    return ClineRun(
        code, lines, text, err.decode(errors="replace"), requests, results, users, wall, root,
        timed_out,
    )  # fmt: skip
