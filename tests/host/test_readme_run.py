"""The README's `hookd run ... -- claude` commands, run as written.

Each command is taken from the README's shell blocks (continued lines joined) and run
with ``bash`` from the installed console script, in a folder holding the README's own
``my_hooks.py``. ``claude`` on ``PATH`` is the real CLI bundled with claude-agent-sdk,
talking to the fake Messages API; the model's first turn runs ``rm -rf build`` with Bash,
which the README's guard must deny.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.cli.console import HOOKD
from tests.support.claude_cli import cli_env
from tests.support.fake_anthropic import FakeAnthropic, run_tool_then_done
from tests.support.stream import tool_results

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DENIED = "no recursive deletes in this repository"


def readme_commands() -> list[str]:
    """Every README shell command that runs `hookd run`, continuation lines joined."""
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", README, re.S):
        for command in block.replace("\\\n", " ").splitlines():
            if "hookd run" in command:
                commands.append(" ".join(re.sub(r"\s+#\s.*$", "", command).split()))
    return commands


COMMANDS = readme_commands()


@pytest.fixture
def reader(tmp_path: Path, claude: Path) -> Path:
    """A project folder with the README's my_hooks.py, and `claude` on PATH."""
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "claude").symlink_to(claude)
    (tmp_path / "bin" / "hookd").symlink_to(HOOKD)
    project = tmp_path / "project"
    project.mkdir()
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    (project / "my_hooks.py").write_text(next(b for b in blocks if b.startswith("# my_hooks.py")))
    return project


def run(command: str, reader: Path) -> tuple[subprocess.CompletedProcess[str], FakeAnthropic]:
    with FakeAnthropic(run_tool_then_done(["rm -rf build"])) as api:
        env = cli_env(reader.parent / "home", api.base_url)
        env["PATH"] = f"{reader.parent / 'bin'}{os.pathsep}{env['PATH']}"
        done = subprocess.run(
            ["bash", "-c", command],
            capture_output=True,
            text=True,
            cwd=reader,
            env=env,
            timeout=180,
            check=False,
        )
    return done, api


def stream(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def test_the_readme_shows_the_run_commands() -> None:
    assert len(COMMANDS) == 5, COMMANDS
    assert all(c.startswith(("hookd run", "printf", "hookd record")) for c in COMMANDS), COMMANDS


@pytest.mark.parametrize("command", COMMANDS, ids=[c[:60] for c in COMMANDS])
def test_readme_run_command(command: str, reader: Path) -> None:
    done, api = run(command, reader)
    assert done.returncode == 0, done.stderr[-3000:]
    assert api.errors == []
    prompts = 2 if command.startswith("printf 'list") else 1
    results = [f for f in reader.iterdir() if f.suffix == ".jsonl"]
    messages = stream(results[0].read_text()) if results else stream(done.stdout)
    if command.startswith("hookd record"):
        # the recording holds the control exchanges, the guard's deny among them
        assert DENIED in results[0].read_text()
        return
    denied = tool_results(messages)
    assert denied and DENIED in json.dumps(denied[0]), messages[-3:]
    assert sum(1 for m in messages if m.get("type") == "result") == prompts
