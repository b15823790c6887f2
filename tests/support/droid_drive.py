"""Factory Droid (``droid exec``, pinned ``@factory/cli``) run offline against a fake model.

:func:`drive_droid` makes a scratch HOME whose ``~/.factory/settings.json`` declares one custom
model (provider ``anthropic``) served by :class:`~tests.support.fake_anthropic.FakeAnthropic`,
and a project folder whose ``.factory/hooks.json`` is the caller's (the event map itself: Droid
wants no ``{"hooks": ...}`` wrapper there). The fake model asks for the given tool calls, one a
turn (a plain string is a call of Droid's shell tool ``Execute``), then says ``done``. Nothing
leaves the machine: ``FACTORY_AIRGAP_ENABLED=true`` turns off Droid's telemetry and updates.

The run's exit code, stdout and stderr come back with every ``/v1/messages`` body the fake
received; the tool results the client sent back are where a hook's denial reason shows up
(:meth:`DroidRun.tool_results`). A run with two tool calls takes about 1.2 s of wall time on a
2-core machine (the CLI is one 250 MB Bun binary; it starts in about 0.5 s).

    python -m tests.support.droid_drive 'echo hi'     # one run, its tool results and timing
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.agent_clis import agent_cli
from tests.support.fake_anthropic import FakeAnthropic, JsonObject, ToolUse, Turn, text

__all__ = [
    "MODEL_ID",
    "DroidRun",
    "drive_droid",
    "droid_env",
    "execute",
    "tool_result_texts",
    "write_settings",
]

#: The id ``droid exec -m`` takes for the one custom model: ``custom:`` + displayName + index.
MODEL_ID = "custom:Fake-0"
#: A whole run: start-up, a few tool calls with their hooks, the last answer.
RUN_TIMEOUT_S = 90.0
#: What the fake says once its tool calls are spent (and to any request that offers no tools).
FINAL_TEXT = "done"
#: Droid's shell tool wants a sentence-cased summary of 3-8 words (a schema pattern).
SUMMARY = "Run the requested command"


def execute(command: str, *, risk: str = "medium", summary: str = SUMMARY, **more: Any) -> ToolUse:
    """A call of Droid's shell tool ``Execute`` with the arguments its schema requires."""
    args = {"command": command, "summary": summary, "riskLevel": risk,
            "riskLevelReason": f"The command was asked for by the test ({risk} risk)."}  # fmt: skip
    return ToolUse("Execute", {**args, **more})


def _call(item: str | ToolUse) -> ToolUse:
    return execute(item) if isinstance(item, str) else item


def _assistant_turns(request: JsonObject) -> int:
    messages = request.get("messages") or []
    return sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant")


def _script(calls: Sequence[ToolUse], final: str) -> Any:
    def script(request: JsonObject) -> Turn:
        n = _assistant_turns(request)
        if n < len(calls) and request.get("tools"):
            return Turn((calls[n],), "tool_use")
        return text(final)

    return script


def tool_result_texts(requests: Sequence[JsonObject]) -> list[tuple[str, str]]:
    """``(tool_use_id, text)`` of each distinct tool result in the requests, in order."""
    seen: dict[str, str] = {}
    for request in requests:
        for message in request.get("messages") or []:
            content = message.get("content") if isinstance(message, dict) else None
            for block in content if isinstance(content, list) else []:
                if not isinstance(block, dict) or block.get("type") != "tool_result":
                    continue
                body = block.get("content")
                if isinstance(body, list):
                    body = "".join(str(part.get("text", "")) for part in body
                                   if isinstance(part, dict))  # fmt: skip
                seen.setdefault(str(block.get("tool_use_id")), str(body or ""))
    return list(seen.items())


@dataclass
class DroidRun:
    """One finished ``droid exec``: what it printed and what the fake model was sent."""

    exit_code: int
    stdout: str
    stderr: str
    requests: list[JsonObject]  # the bodies of every POST /v1/messages, in order
    wall_s: float
    home: Path
    project: Path
    argv: list[str] = field(default_factory=list)

    def tool_results(self) -> list[str]:
        """The text of each tool result Droid sent the model, in order (a deny's reason)."""
        return [body for _, body in tool_result_texts(self.requests)]

    def tool_names(self) -> list[str]:
        """The tools the first request offered."""
        first = next((r for r in self.requests if r.get("tools")), {})
        return [str(t.get("name")) for t in first.get("tools") or []]

    def log(self) -> str:
        """Droid's own log of the run (``~/.factory/logs``): hook errors are written there."""
        logs = sorted((self.home / ".factory" / "logs").glob("*.log"))
        return "".join(p.read_text(errors="replace") for p in logs)


def write_settings(home: Path, base_url: str, **settings: Any) -> Path:
    """``HOME/.factory/settings.json`` declaring the fake as the one custom model."""
    model = {"model": "fake-model", "displayName": "Fake", "baseUrl": base_url,
             "apiKey": "sk-fake-droid", "provider": "anthropic"}  # fmt: skip
    path = home / ".factory" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"customModels": [model], **settings}, indent=2))
    return path


def droid_env(home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A small environment for ``droid``: the scratch HOME, offline, no update, no colours."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "FACTORY_AIRGAP_ENABLED": "true",
        "FACTORY_DROID_AUTO_UPDATE_ENABLED": "false",
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
    }
    return {**env, **(extra or {})}


def drive_droid(
    root: Path,
    hooks: Mapping[str, Any] | None,
    calls: Sequence[str | ToolUse],
    *,
    prompt: str = "Run the commands.",
    auto: str | None = "high",
    env: Mapping[str, str] | None = None,
    user_hooks: Mapping[str, Any] | None = None,
    settings: Mapping[str, Any] | None = None,
    args: Sequence[str] = (),
    final: str = FINAL_TEXT,
    timeout: float = RUN_TIMEOUT_S,
    before: Callable[[Path], None] | None = None,
) -> DroidRun:
    """One ``droid exec`` in ``root/project`` (HOME ``root/home``, both made afresh).

    ``hooks`` is written as the project's ``.factory/hooks.json`` (None: no file), and
    ``user_hooks`` as ``~/.factory/hooks.json``; ``settings`` are merged into the user's
    ``settings.json``. ``calls`` are the model's tool calls, one per turn (a string: an
    ``Execute`` of that command). ``auto`` is the autonomy level (None: Droid's read-only
    default). ``before`` is called with the project folder once it is made (to put files
    there). The run's exit code is returned, not asserted.
    """
    home, project = root / "home", root / "project"
    for folder in (home, project):
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
    if hooks is not None:
        (project / ".factory").mkdir()
        (project / ".factory" / "hooks.json").write_text(json.dumps(hooks, indent=2))
    if user_hooks is not None:
        (home / ".factory").mkdir()
        (home / ".factory" / "hooks.json").write_text(json.dumps(user_hooks, indent=2))
    if before is not None:
        before(project)
    argv = [str(agent_cli("droid")), "exec", "-m", MODEL_ID]
    if auto is not None:
        argv += ["--auto", auto]
    argv += [*args, prompt]
    with FakeAnthropic(_script([_call(c) for c in calls], final)) as fake:
        write_settings(home, fake.base_url, **(settings or {}))
        start = time.monotonic()
        try:
            done = subprocess.run(
                argv, cwd=project, env=droid_env(home, env), stdin=subprocess.DEVNULL,
                capture_output=True, text=True, timeout=timeout, check=False,
            )  # fmt: skip
        except subprocess.TimeoutExpired as late:
            raise AssertionError(
                f"droid exec ran past {timeout}s; stderr: {str(late.stderr or '')[-1500:]}"
            ) from None
        wall = time.monotonic() - start
        requests = fake.message_requests
    return DroidRun(done.returncode, done.stdout, done.stderr, requests, wall, home, project, argv)


def main(argv: list[str]) -> int:
    """Run the given commands through Droid with no hooks; print what the model got back."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="droid-drive-") as tmp:
        run = drive_droid(Path(tmp), None, argv or ["echo hello from droid"])
        print(f"exit {run.exit_code} in {run.wall_s:.2f}s; stdout {run.stdout.strip()!r}")
        for result in run.tool_results():
            print("tool result:", result)
        if run.exit_code:
            print(run.stderr[-2000:], file=sys.stderr)
        return run.exit_code


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
