"""What the real Copilot CLI and Qwen Code tests share: a guarded project, its daemon, a run.

A :class:`Guarded` project is a private home (``tests.daemon.support.Box``) holding a copy of
``conformance/hooks/agents_guard.py`` and that module's daemon, started with the console
script ``hookd up MODULE --port PORT``. The agent's hooks config is the one the console script
``hookd install --agent AGENT MODULE`` writes; each agent's test module runs the real CLI
against a :class:`FakeChat` and looks at the files the commands would touch.

With ``HOOKD_RECORD_AGENTS=1`` each hook command runs under ``recorder.py``, and
:func:`write_transcript` turns the recorded calls into ``conformance/transcripts/agents/``.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookd.agents import SHIM
from hookd.daemon.where import module_key, state_dir, token_file
from tests.agents.test_shim import free_port
from tests.daemon.support import Box, hookd
from tests.support.agent_clis import PINNED

__all__ = [
    "GUARD",
    "REASON",
    "RECORDING",
    "Guarded",
    "guarded",
    "run_cli",
    "write_transcript",
]

ROOT = Path(__file__).resolve().parents[3]
GUARD = ROOT / "conformance" / "hooks" / "agents_guard.py"
TRANSCRIPTS = ROOT / "conformance" / "transcripts" / "agents"
RECORDER = Path(__file__).with_name("recorder.py")
#: The guard's reason for a denied ``rm -rf`` (the agent's name follows it).
REASON = "hookd-guard: rm -rf is not allowed here"
#: A whole CLI session against the fake model: start-up, two tool calls, the last answer.
CLI_TIMEOUT_S = 120.0
RECORDING = os.environ.get("HOOKD_RECORD_AGENTS") == "1"


@dataclass(frozen=True)
class Guarded:
    """A project guarded by a copy of the agents' guard module and that module's daemon."""

    box: Box
    module: Path
    port: int
    record: Path | None  # where recorded hook calls are appended (None: not recorded)

    @property
    def token_file(self) -> Path:
        """The module's daemon token file (hookd.daemon.paths, under the box's state)."""
        key = module_key(str(self.module.resolve()))
        return Path(token_file(state_dir(str(self.box.state / "hookd"), key)))

    def install(self, agent: str) -> None:
        """``hookd install --agent AGENT MODULE`` (the console script), then, when recording,
        every hook command it wrote runs under the recorder."""
        done = hookd(self.box, "install", "--agent", agent, str(self.module), "--port",
                     str(self.port))  # fmt: skip
        assert done.returncode == 0, done.stderr
        if self.record is not None:
            for path in self.box.project.glob(_CONFIGS[agent]):
                path.write_text(json.dumps(_recorded(json.loads(path.read_text()), self.record)))

    def uninstall(self, agent: str) -> None:
        done = hookd(self.box, "uninstall", "--agent", agent, str(self.module))
        assert done.returncode == 0, done.stderr

    def up(self) -> None:
        done = hookd(self.box, "up", str(self.module), "--port", str(self.port))
        assert done.returncode == 0, done.stderr

    def down(self) -> None:
        done = hookd(self.box, "down")
        assert done.returncode == 0, done.stderr


#: Where ``hookd install --agent`` writes each agent's hooks, in the project.
_CONFIGS = {"copilot": ".github/hooks/*.json", "qwen": ".qwen/settings.json"}


def _recorded(value: Any, out: Path) -> Any:
    """``value`` with each command hook's command run under the recorder, appending to ``out``."""
    if isinstance(value, list):
        return [_recorded(item, out) for item in value]
    if not isinstance(value, dict):
        return value
    value = {key: _recorded(item, out) for key, item in value.items()}
    for key in ("bash", "command"):
        command = value.get(key) if value.get("type") == "command" else None
        words = shlex.split(command, comments=True) if isinstance(command, str) else []
        if words[:2] == ["bash", SHIM]:  # bash SHIM PORT TOKEN_FILE AGENT/EVENT ...
            event = words[4].split("/")[1]
            value[key] = shlex.join([sys.executable, str(RECORDER), str(out), event, *words])
    return value


@contextmanager
def guarded(root: Path, *, record: bool = False) -> Iterator[Guarded]:
    """A guarded project under ``root`` with its daemon up; every daemon is stopped after."""
    box = Box(root)
    box.env()
    module = box.project / ".hookd" / "agents_guard.py"
    module.parent.mkdir()
    shutil.copy(GUARD, module)
    g = Guarded(box, module, free_port(), root / "calls.jsonl" if record else None)
    g.up()
    try:
        yield g
    finally:
        hookd(box, "down")


def run_cli(argv: Sequence[str], g: Guarded, env: Mapping[str, str]) -> str:
    """Run an agent CLI in the project to exit, under a timeout; its stdout."""
    done = subprocess.run(
        list(argv), cwd=g.box.project, env={**g.box.env(), **env}, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=CLI_TIMEOUT_S, check=False,
    )  # fmt: skip
    assert done.returncode == 0, f"{argv[0]} exited {done.returncode}: {done.stderr[-2000:]}"
    return done.stdout


def recorded(g: Guarded) -> list[dict[str, Any]]:
    """The hook calls the recorder appended, in order."""
    if g.record is None or not g.record.exists():
        return []
    return [json.loads(line) for line in g.record.read_text().splitlines()]


def write_transcript(agent: str, g: Guarded) -> None:
    """``conformance/transcripts/agents/AGENT.jsonl``: a header, then one line per hook call."""
    cli = PINNED[agent]
    header = {"hookd_agent_transcript": 1, "agent": agent,
              "cli": f"{cli.package}@{cli.version}",
              "module": str(GUARD.relative_to(ROOT))}  # fmt: skip
    calls = recorded(g)
    assert calls, "the recording holds no hook call"
    lines = [json.dumps(header), *(json.dumps(call) for call in calls)]
    TRANSCRIPTS.mkdir(parents=True, exist_ok=True)
    (TRANSCRIPTS / f"{agent}.jsonl").write_text("\n".join(lines) + "\n")
