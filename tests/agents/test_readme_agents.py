"""The README's agent shim command, run as written against a served module."""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path

import pytest
import trio

from hookd.agents import SHIM
from tests.agents.test_agent_route import DENIED, GUARD
from tests.daemon.support import Box, hookd
from tests.serve.http.client import serve_http

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.req("R-A08")
async def test_the_readme_shim_line_answers_as_documented(tmp_path: Path) -> None:
    (line,) = re.findall(r"^bash /path/to/hookd-agent\.sh .*$", README, re.M)
    assert "~/.config/hookd-token" in line and " 8765 " in line
    assert line.endswith(" ~/.config/hookd-ready.json")  # the proof of who listens
    async with serve_http(tmp_path, hooks=GUARD) as served:
        command = (
            line.replace("/path/to/hookd-agent.sh", SHIM)
            .replace(" 8765 ", f" {served.port} ")
            .replace("~/.config/hookd-token", str(tmp_path / "token"))
            .replace("~/.config/hookd-ready.json", str(served.ready_file))
        )
        gemini = next(payload for agent, _, payload, _ in DENIED if agent == "gemini")
        with trio.fail_after(10):
            done = await trio.run_process(
                ["bash", "-c", command], stdin=json.dumps(gemini).encode(),
                capture_stdout=True, capture_stderr=True, check=False,
            )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"decision": "deny", "reason": "no recursive deletes"}


def agents_section() -> str:
    start = README.index("\n## Other agent CLIs")
    return README[start : README.index("\n## ", start + 1)]


def install_commands() -> list[list[str]]:
    (block,) = [b for b in re.findall(r"```sh\n(.*?)```", agents_section(), re.S)
                if "hookd install --agent" in b]  # fmt: skip
    return [shlex.split(line, comments=True)[1:] for line in block.splitlines() if line.strip()]


@pytest.mark.req("R-A09", "R-A11", "R-A17")
def test_the_readme_install_lines_run_as_written(tmp_path: Path) -> None:
    box = Box(tmp_path)
    env = box.env()
    fake = tmp_path / "bin"
    fake.mkdir()
    for name in ("codex", "qwen"):  # the agent CLIs "on PATH" for --agent all
        (fake / name).write_text("#!/bin/sh\n")
        (fake / name).chmod(0o755)
    env["PATH"] = f"{fake}{os.pathsep}{env['PATH']}"
    first = README[README.index("## Use it with Claude Code") :]
    module = box.project / ".claude" / "hooks.py"
    module.parent.mkdir(parents=True)
    module.write_text(re.findall(r"```python\n(.*?)```", first, re.S)[0])
    commands = install_commands()
    assert [c[0] for c in commands] == ["install", "install", "install", "status", "uninstall"]
    try:
        for args in commands:
            done = hookd(box, *args, env=env)
            assert done.returncode == 0, (args, done.stderr)
            if args[0] == "status":
                assert "codex hooks in " in done.stdout
        assert not (box.project / ".codex").exists()  # uninstalled
        for kept in (".gemini/settings.json", ".qwen/settings.json", ".claude/settings.local.json"):
            assert (box.project / kept).is_file()
    finally:
        hookd(box, "down", env=env)
