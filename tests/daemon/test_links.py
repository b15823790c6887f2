"""No write through a link hookd did not make: a repository can ship one where hookd writes.

Every test plants a symbolic link (to a folder outside the project, or dangling) where a
hookd command writes, runs the console script as a user would, and checks that the link
is refused in one line naming it, and that nothing was written anywhere: not at the
link's target, not in the project, not in the state directory.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.daemon.support import HOOKD, Box, hookd

HOOKS_DIR = Path(__file__).resolve().parents[1] / "hooks"
#: The user's own settings, with a secret of theirs in it (what the old install copied out).
THEIRS = {"env": {"MY_API_TOKEN": "sk-their-own-secret"}, "permissions": {"allow": ["Bash"]}}


@pytest.fixture
def project(box: Box) -> Iterator[Path]:
    """A git work tree holding ``.claude/hooks.py`` and the user's own local settings."""
    claude = box.project / ".claude"
    claude.mkdir(parents=True)
    shutil.copy(HOOKS_DIR / "daemon_guard.py", claude / "hooks.py")
    (claude / "settings.local.json").write_text(json.dumps(THEIRS))
    subprocess.run(["git", "init", "-q", str(box.project)], check=True)
    yield claude / "hooks.py"
    hookd(box, "down")


@pytest.fixture(params=["outside", "dangling"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """Where a planted link points: a file to be made in an existing folder outside the
    project (``/tmp/x/stolen``), or under a folder that does not exist (dangling)."""
    if request.param == "outside":
        (tmp_path / "x").mkdir()
        return tmp_path / "x" / "stolen"
    return tmp_path / "nowhere" / "stolen"


def plant(link: Path, target: Path) -> Path:
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)
    return link


def refused(done: subprocess.CompletedProcess[str], command: str, link: Path) -> str:
    """The one error line of a refused run, naming ``link``."""
    assert done.returncode in (1, 2), done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"hookd {command}: error: {link}: a symbolic link"), line
    return line


def untouched(box: Box, target: Path, settings: Path) -> None:
    assert not target.exists() and not target.parent.joinpath("stolen").exists()
    assert json.loads(settings.read_text()) == THEIRS
    assert box.daemon_dirs() == []  # no state written either


@pytest.mark.req("R-D70", "R-D73")
def test_install_refuses_a_planted_backup_link(box: Box, project: Path, target: Path) -> None:
    settings = project.parent / "settings.local.json"
    link = plant(settings.with_name("settings.local.json.hookd.bak"), target)
    done = hookd(box, "install", str(project), "--no-start")
    refused(done, "install", link)
    untouched(box, target, settings)
    assert os.readlink(link) == str(target)  # the link itself left as it was
    link.unlink()
    assert hookd(box, "install", str(project), "--no-start").returncode == 0
    backup = settings.with_name("settings.local.json.hookd.bak")
    assert json.loads(backup.read_text()) == THEIRS
    assert backup.stat().st_mode & 0o777 == 0o600  # the user's settings, kept private


@pytest.mark.req("R-D70")
def test_install_refuses_a_settings_file_or_folder_that_is_a_link(
    box: Box, project: Path, target: Path
) -> None:
    settings = project.parent / "settings.local.json"
    shared = plant(project.parent / "settings.json", target)
    done = hookd(box, "install", str(project), "--scope", "project", "--no-start")
    refused(done, "install", shared)
    untouched(box, target, settings)
    elsewhere = target.parent.parent / "elsewhere"
    elsewhere.mkdir(exist_ok=True)
    folder = plant(box.project / ".codex", elsewhere)
    done = hookd(box, "install", str(project), "--agent", "claude", "--agent", "codex")
    refused(done, "install", folder)
    assert list(elsewhere.iterdir()) == []
    untouched(box, target, settings)


@pytest.mark.req("R-D71", "R-D73")
def test_install_gemini_refuses_a_planted_backup_link(
    box: Box, project: Path, target: Path
) -> None:
    gemini = box.project / ".gemini" / "settings.json"
    gemini.parent.mkdir()
    gemini.write_text(json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}))
    link = plant(gemini.with_name("settings.json.hookd.bak"), target)
    before = gemini.read_bytes()
    done = hookd(box, "install", str(project), "--agent", "gemini", "--no-start")
    refused(done, "install", link)
    assert gemini.read_bytes() == before
    untouched(box, target, project.parent / "settings.local.json")


@pytest.mark.req("R-D72")
def test_install_refuses_a_git_exclude_that_is_a_link(
    box: Box, project: Path, target: Path
) -> None:
    exclude = box.project / ".git" / "info" / "exclude"
    exclude.unlink(missing_ok=True)
    plant(exclude, target)
    done = hookd(box, "install", str(project), "--no-start")
    refused(done, "install", exclude)
    untouched(box, target, project.parent / "settings.local.json")


@pytest.mark.req("R-D72")
def test_the_exclude_file_is_replaced_not_appended_through(box: Box, project: Path) -> None:
    exclude = box.project / ".git" / "info" / "exclude"
    exclude.write_text("# the user's own\n*.log")
    inode = exclude.stat().st_ino
    assert hookd(box, "install", str(project), "--no-start").returncode == 0
    text = exclude.read_text()
    assert text.startswith("# the user's own\n*.log\n# hookd install:")
    assert "/.claude/settings.local.json\n" in text
    assert exclude.stat().st_ino != inode  # a new file renamed over the old one


@pytest.mark.req("R-D70")
def test_uninstall_refuses_a_settings_file_swapped_for_a_link(
    box: Box, project: Path, tmp_path: Path
) -> None:
    settings = project.parent / "settings.local.json"
    assert hookd(box, "install", str(project), "--no-start").returncode == 0
    kept = tmp_path / "kept.json"
    settings.rename(kept)
    settings.symlink_to(kept)
    before = kept.read_bytes()
    done = hookd(box, "uninstall", str(project))
    refused(done, "uninstall", settings)
    assert kept.read_bytes() == before


@pytest.mark.req("R-D74")
def test_recordings_refuse_a_planted_link(box: Box, project: Path, target: Path) -> None:
    out = plant(box.project / "session.jsonl", target)
    command = [HOOKD, "serve", str(project)]
    done = hookd(box, "record", "--via", "proxy", "--out", str(out), "--", *command)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    (line,) = [line for line in done.stderr.splitlines() if "error" in line]
    assert f"{out}: a symbolic link" in line
    assert not target.exists()
    env = box.env(HOOKD_RECORD=str(out))
    served = hookd(box, "serve", str(project), env=env)  # stdin closed at once: it ends
    assert f"{out}: a symbolic link" in served.stderr
    assert not target.exists()


@pytest.mark.req("R-D74")
def test_new_and_schema_write_refuse_a_planted_link(box: Box, target: Path) -> None:
    folder = box.project / "guard"
    link = plant(folder / "test_hooks.py", target)
    done = hookd(box, "new", str(folder), "--force")
    refused(done, "new", link)
    assert not target.exists() and not (folder / "hooks.py").exists()
    schemas = box.project / "schemas"
    link = plant(schemas / "events" / "PreToolUse.output.json", target)
    done = hookd(box, "schema", "--write", str(schemas))
    assert done.returncode == 1 and f"{link}: a symbolic link" in done.stderr
    assert len(done.stderr.splitlines()) == 1
    assert not target.exists() and [p for p in schemas.rglob("*") if p.is_file()] == []


@pytest.mark.req("R-D71")
def test_the_token_rewrite_leaves_a_settings_file_that_became_a_link_alone(
    box: Box, project: Path, tmp_path: Path
) -> None:
    settings = project.parent / "settings.local.json"
    assert hookd(box, "install", str(project), "--no-start").returncode == 0
    kept = tmp_path / "kept.json"
    settings.rename(kept)
    settings.symlink_to(kept)
    before = kept.read_bytes()
    done = hookd(box, "up", str(project))  # a new token for the settings files it installed
    assert done.returncode == 0, done.stderr
    warned = f"hookd: warning: {settings}: cannot write the new token: {settings}: a symbolic link"
    assert warned in done.stderr
    assert kept.read_bytes() == before and settings.is_symlink()
