"""The README's first section, "Use it with Claude Code", run as written: its hooks module
and every ``hookd`` command it shows, through the installed console script."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from tests.daemon.support import Box, hookd

README = Path(__file__).resolve().parents[2] / "README.md"
FENCE = re.compile(r"```(\w+)\n(.*?)```", re.DOTALL)


def section() -> str:
    text = README.read_text(encoding="utf-8")
    first = text.index("\n## ")
    assert text[first:].startswith("\n## Use it with Claude Code\n"), "the README's first section"
    end = text.index("\n## ", first + 1)
    return text[first:end]


def blocks(kind: str) -> list[str]:
    return [body for lang, body in FENCE.findall(section()) if lang == kind]


def commands() -> list[list[str]]:
    out = []
    for body in blocks("sh"):
        for line in body.splitlines():
            words = shlex.split(line, comments=True)
            if words and words[0] == "hookd":
                out.append(words[1:])
    return out


def test_the_section_shows_install_status_and_uninstall() -> None:
    shown = [c[0] for c in commands()]
    assert shown[0] == "install" and {"status", "uninstall"} <= set(shown)
    assert "pip install /path/to/hookd" in blocks("sh")[0]  # the one step the tests did (make)


@pytest.mark.req("R-D01", "R-D23", "R-D24", "R-D07")
def test_every_command_of_the_section_runs(box: Box) -> None:
    (module_text,) = blocks("python")
    module = box.project / ".claude" / "hooks.py"
    module.parent.mkdir(parents=True)
    module.write_text(module_text)
    try:
        for args in commands():
            done = hookd(box, *args)
            assert done.returncode == 0, (args, done.stderr)
            if args[0] == "install":
                settings = json.loads((box.project / ".claude/settings.local.json").read_text())
                assert settings["hooks"]["PreToolUse"][0]["hooks"][0]["onFailure"] == "block"
            if args[0] == "status" and len(args) == 1:
                assert " destructive_commands " in done.stdout and "PreToolUse" in done.stdout
    finally:
        hookd(box, "down")
    assert not (box.project / ".claude/settings.local.json").exists()
