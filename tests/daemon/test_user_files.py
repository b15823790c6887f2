"""The user's files, as the user keeps them: bytes, links, read-only files, failures, leftovers.

Every test runs the console script on real files in a private HOME and reads the files back.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.daemon.support import Box, hookd, squatter

HOOKS_DIR = Path(__file__).resolve().parents[1] / "hooks"
#: A user's settings as an editor left them: a byte order mark, CRLF, tabs, a duplicate key
#: (JSON.parse keeps the last), a number no float holds, one past 2^64, text not in ASCII.
THEIRS = (
    "\ufeff{\r\n"
    '\t"model": "claude-opus",\r\n'
    '\t"model": "claude-sonnet-4-5",\r\n'
    '\t"env": {"BUDGET": 1e400, "SEED": 123456789012345678901234567890, "NAME": "Zoë"},\r\n'
    '\t"permissions": {\r\n'
    '\t\t"allow": ["Bash(ls *)"]\r\n'
    "\t}\r\n"
    "}\r\n"
).encode()


def one_error(done: subprocess.CompletedProcess[str], command: str = "install") -> str:
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"hookd {command}: error: "), line
    return line


def local(box: Box) -> Path:
    return box.project / ".claude" / "settings.local.json"


@pytest.mark.req("R-F02")
def test_install_then_uninstall_gives_back_the_exact_bytes(box: Box, module: Path) -> None:
    settings = local(box)
    settings.write_bytes(THEIRS)
    done = hookd(box, "install", str(module), "--no-start")
    assert done.returncode == 0, done.stderr
    text = settings.read_bytes().decode()
    assert text.startswith("\ufeff{\r\n") and "\n" not in text.replace("\r\n", "")
    assert '"BUDGET": 1e400' in text and "123456789012345678901234567890" in text
    assert text.count('"model"') == 2 and '"Zoë"' in text
    value = json.loads(text[1:])  # what Claude Code reads: JSON, the last "model" kept
    assert value["model"] == "claude-sonnet-4-5" and "PreToolUse" in value["hooks"]
    assert '\t\t"PreToolUse": [\r\n' in text  # in the file's own indentation
    done = hookd(box, "uninstall", str(module))
    assert done.returncode == 0, done.stderr
    assert settings.read_bytes() == THEIRS
    assert not settings.with_name("settings.local.json.hookd.bak").exists()


@pytest.mark.req("R-F03")
def test_a_change_meanwhile_keeps_the_users_layout(box: Box, module: Path) -> None:
    settings = local(box)
    settings.write_bytes(THEIRS)
    assert hookd(box, "install", str(module), "--no-start").returncode == 0
    rule = '["Bash(ls *)"]'
    saved = settings.read_bytes().decode().replace(rule, '["Bash(ls *)", "Bash(npm test)"]')
    settings.write_bytes(saved.encode())  # the CLI saves an "always allow" rule meanwhile
    done = hookd(box, "uninstall", str(module))
    assert done.returncode == 0, done.stderr
    expected = THEIRS.decode().replace(rule, '["Bash(ls *)", "Bash(npm test)"]').encode()
    assert settings.read_bytes() == expected  # only hookd's entries went


@pytest.mark.req("R-F01")
def test_a_dotfiles_link_is_written_through_and_stays_a_link(box: Box, module: Path) -> None:
    dotfiles = box.home / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / "claude-settings.json"
    target.write_bytes(THEIRS)
    link = box.home / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(Path("..") / "dotfiles" / "claude-settings.json")
    done = hookd(box, "install", str(module), "--scope", "user", "--no-start")
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and b"hookd=" in target.read_bytes()
    up = hookd(box, "up", str(module))  # a new token, written through the link
    assert up.returncode == 0, up.stderr
    assert f"Bearer {box.token()}" in target.read_text() and link.is_symlink()
    assert hookd(box, "uninstall", str(module), "--scope", "user").returncode == 0
    assert link.is_symlink() and target.read_bytes() == THEIRS
    dotfiles.chmod(0o777)  # a folder others may write: the link is not followed
    line = one_error(hookd(box, "install", str(module), "--scope", "user", "--no-start"))
    assert line == (
        f"hookd install: error: {link}: a symbolic link into a folder other users can write "
        f"({dotfiles}); hookd follows a link only to a regular file of yours, in a folder "
        "only you can write; remove the link"
    )
    assert target.read_bytes() == THEIRS


@pytest.mark.req("R-F01")
def test_a_link_in_a_project_is_followed_only_inside_it(
    box: Box, module: Path, tmp_path: Path
) -> None:
    shared = box.project / "config" / "gemini.json"
    shared.parent.mkdir()
    shared.write_bytes(b'{"ui": {"theme": "GitHub"}}\n')
    link = box.project / ".gemini" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(Path("..") / "config" / "gemini.json")
    done = hookd(box, "install", "--agent", "gemini", str(module), "--no-start")
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and b"#hookd=" in shared.read_bytes()
    assert hookd(box, "uninstall", "--agent", "gemini", str(module)).returncode == 0
    assert link.is_symlink() and shared.read_bytes() == b'{"ui": {"theme": "GitHub"}}\n'
    outside = tmp_path / "mine"
    outside.mkdir(mode=0o700)
    (outside / "settings.json").write_bytes(THEIRS)  # the user's own, in a private folder
    settings = local(box)
    settings.symlink_to(outside / "settings.json")
    line = one_error(hookd(box, "install", str(module), "--no-start"))
    assert line == (
        f"hookd install: error: {settings}: a symbolic link to a file outside the project "
        f"({outside / 'settings.json'}); hookd follows a link only to a regular file of "
        "yours, in a folder only you can write, inside the project; remove the link"
    )
    assert (outside / "settings.json").read_bytes() == THEIRS


@pytest.mark.req("R-F05")
def test_a_read_only_settings_file_is_refused(box: Box, module: Path) -> None:
    settings = local(box)
    settings.write_bytes(THEIRS)
    settings.chmod(0o444)
    line = one_error(hookd(box, "install", str(module), "--no-start"))
    assert line == (
        f"hookd install: error: {settings}: read-only (mode 444); hookd does not rewrite a "
        f"file you made read-only: make it writable (chmod u+w {settings}) and run it again"
    )
    assert settings.read_bytes() == THEIRS and box.daemon_dirs() == []
    settings.chmod(0o644)
    assert hookd(box, "install", str(module), "--no-start").returncode == 0
    settings.chmod(0o444)
    one_error(hookd(box, "uninstall", str(module)), "uninstall")
    assert b"hookd=" in settings.read_bytes()  # left alone, as said


@pytest.mark.req("R-F06")
def test_a_failed_install_for_several_agents_changes_nothing(box: Box, module: Path) -> None:
    gemini = box.project / ".gemini" / "settings.json"
    gemini.parent.mkdir()
    gemini.write_bytes(b'{\n  // mine\n  "theme": "dark"\n}\n')
    qwen = box.project / ".qwen" / "settings.json"
    qwen.parent.mkdir()
    qwen.write_text('{"model": {"name": "qwen3-coder"},,}')
    done = hookd(box, "install", "--agent", "gemini", "--agent", "qwen", str(module))
    line = one_error(done)
    assert f"{qwen}: not valid JSON with comments" in line
    assert line.endswith("; nothing installed (.gemini/settings.json put back as it was)")
    assert gemini.read_bytes() == b'{\n  // mine\n  "theme": "dark"\n}\n'
    assert sorted(p.name for p in gemini.parent.iterdir()) == ["settings.json"]  # no backup
    assert box.daemon_dirs() == []  # no install record: nothing to uninstall


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.mark.req("R-F07")
def test_a_daemon_that_cannot_start_takes_the_install_back(box: Box, module: Path) -> None:
    settings = local(box)
    settings.write_bytes(THEIRS)
    port = free_port()
    with squatter(port):
        done = hookd(box, "install", str(module), "--port", str(port))
    line = one_error(done)
    assert f"port {port} on 127.0.0.1 is held by another program" in line
    assert line.endswith("; nothing installed (.claude/settings.local.json put back as it was)")
    assert settings.read_bytes() == THEIRS  # no fail-closed entry blocks every tool call
    assert box.daemon_dirs() == []


@pytest.mark.req("R-F10", "R-F11")
def test_uninstall_leaves_nothing_behind(box: Box, module: Path) -> None:
    subprocess.run(["git", "init", "-q", str(box.project)], check=True)
    exclude = box.project / ".git" / "info" / "exclude"
    exclude.write_bytes(b"# the user's own\n*.log\n")
    (box.project / ".qwen").mkdir()
    qwen = box.project / ".qwen" / "settings.json"
    qwen.write_bytes(b'{"model": {"name": "qwen3-coder"}}')
    done = hookd(box, "install", "--agent", "claude", "--agent", "qwen", str(module))
    assert done.returncode == 0, done.stderr
    assert b"/.qwen/settings.json\n" in exclude.read_bytes()
    assert hookd(box, "install", str(module), "--scope", "user", "--no-start").returncode == 0
    done = hookd(box, "uninstall", "--agent", "all", str(module))
    assert done.returncode == 0, done.stderr
    assert hookd(box, "uninstall", str(module), "--scope", "user").returncode == 0
    assert exclude.read_bytes() == b"# the user's own\n*.log\n"
    status = subprocess.run(["git", "status", "--porcelain"], cwd=box.project,
                            capture_output=True, text=True, check=True)  # fmt: skip
    assert "?? .qwen/" in status.stdout  # the user's own file, seen by git again
    assert not (box.home / ".claude").exists()  # made by install for the user scope
    assert not (box.state / "hookd").exists() and not (box.runtime / "hookd").exists()


@pytest.mark.req("R-F11")
def test_hookd_run_leaves_no_empty_log_behind(tmp_path: Path) -> None:
    hooks = tmp_path / "hooks.py"
    shutil.copy(HOOKS_DIR / "daemon_guard.py", hooks)
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {**os.environ, "TMPDIR": str(temp)}
    argv = [sys.executable, "-m", "hookd", "run", "--hooks", str(hooks), "--progress", "always"]
    done = subprocess.run([*argv, "-p", "hello", "--", "true"], capture_output=True, text=True,
                          env=env, timeout=60, check=False)  # fmt: skip
    assert done.returncode == 3, done.stderr  # the CLI exited at once, having said nothing
    assert list(temp.iterdir()) == []
