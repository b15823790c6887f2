"""Gemini CLI's and Qwen Code's settings are JSON with comments: hookd installs into them and
takes itself back out, and every comment, the layout and a byte order mark stay."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from hookd.jsontext import Document
from tests.daemon.support import Box, hookd

HOOKS_DIR = Path(__file__).resolve().parents[1] / "hooks"
#: What a user keeps in ``settings.json``: comments of both kinds, a trailing comma (which
#: these CLIs' comment-stripping reader takes), a hook of their own (for EVENT, the agent's
#: PreToolUse), and a byte order mark.
THEIRS = (
    "\ufeff// my Gemini settings, kept in dotfiles\n"
    "{\n"
    '    /* the theme I like */ "ui": {"theme": "GitHub"},\n'
    '    "hooks": {\n'
    '        "EVENT": [  // my own check first\n'
    '            {"matcher": "Edit", "hooks": [{"type": "command", "command": "./check.sh"}]},\n'
    "        ],\n"
    "    },\n"
    "}\n"
).encode()
FILES = {"gemini": Path(".gemini") / "settings.json", "qwen": Path(".qwen") / "settings.json"}


@pytest.fixture
def box(tmp_path: Path) -> Box:
    b = Box(tmp_path)
    b.env()
    return b


@pytest.fixture
def module(box: Box) -> Iterator[Path]:
    target = box.project / ".claude" / "hooks.py"
    target.parent.mkdir(parents=True)
    shutil.copy(HOOKS_DIR / "daemon_guard.py", target)
    yield target
    hookd(box, "down", "--all")


def read(path: Path) -> dict[str, object]:
    value = Document(path.read_bytes(), comments=True).value
    assert isinstance(value, dict)
    return value


@pytest.mark.req("R-F04")
@pytest.mark.parametrize("agent", ["gemini", "qwen"])
def test_a_file_with_comments_keeps_them_through_install_and_uninstall(
    box: Box, module: Path, agent: str
) -> None:
    path = box.project / FILES[agent]
    path.parent.mkdir()
    before = "BeforeTool" if agent == "gemini" else "PreToolUse"
    theirs = THEIRS.replace(b"EVENT", before.encode())
    path.write_bytes(theirs)
    done = hookd(box, "install", "--agent", agent, str(module), "--no-start")
    assert done.returncode == 0, done.stderr
    text = path.read_bytes().decode()
    for kept in ("\ufeff// my Gemini settings", "/* the theme I like */", "// my own check first"):
        assert kept in text
    hooks = read(path)["hooks"]
    assert isinstance(hooks, dict)
    commands = [h["command"] for g in hooks[before] for h in g["hooks"]]
    assert commands[0] == "./check.sh" and "#hookd=" in commands[-1]
    assert '\n            {\n                "hooks": [\n' in text  # the file's own 4 spaces
    assert path.with_name("settings.json.hookd.bak").read_bytes() == theirs
    done = hookd(box, "uninstall", "--agent", agent, str(module))
    assert done.returncode == 0, done.stderr
    assert path.read_bytes() == theirs
