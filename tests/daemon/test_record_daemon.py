"""``hookd record`` choosing the daemon: which settings lead to it, and the one-line errors."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.daemon.support import Box, hookd

HOOKS = Path(__file__).resolve().parents[1] / "hooks" / "daemon_guard.py"


def module(box: Box, name: str) -> Path:
    target = box.project / name
    shutil.copy(HOOKS, target)
    return target


@pytest.mark.req("R-D63")
def test_via_daemon_without_an_install_is_one_line(box: Box, tmp_path: Path) -> None:
    out = tmp_path / "s.jsonl"
    done = hookd(box, "record", "--via", "daemon", "--out", str(out), "--", "true")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "hookd record: error: --via daemon: no `hookd install` entries in the settings read "
        "from here"
    )
    auto = hookd(box, "record", "--out", str(out), "--", "true")  # auto: env, as before
    assert auto.returncode == 0, auto.stderr
    assert not out.exists()


@pytest.mark.req("R-D63")
def test_two_installed_modules_are_one_line(box: Box, tmp_path: Path) -> None:
    first, second = module(box, "one.py"), module(box, "two.py")
    assert hookd(box, "install", str(first), "--no-start").returncode == 0
    assert hookd(box, "install", str(second), "--scope", "user", "--no-start").returncode == 0
    done = hookd(box, "record", "--out", str(tmp_path / "s.jsonl"), "--", "true")
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("hookd record: error: several hookd modules are installed here")
    assert str(first) in line and str(second) in line


@pytest.mark.req("R-D63")
def test_a_project_scope_install_records_through_the_checkouts_daemon(
    box: Box, tmp_path: Path
) -> None:
    target = box.project / ".claude" / "hooks.py"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(HOOKS, target)
    done = hookd(box, "install", ".claude/hooks.py", "--scope", "project", "--no-start")
    assert done.returncode == 0, done.stderr
    out = tmp_path / "s.jsonl"
    try:  # the shims name no port: the daemon is the checkout's own (R-D09)
        recorded = hookd(box, "record", "--via", "daemon", "--out", str(out), "--", "true")
    finally:
        hookd(box, "down")
    assert recorded.returncode == 0, recorded.stderr
    assert f"0 hook requests recorded into {out}" in recorded.stderr
    assert out.exists()
