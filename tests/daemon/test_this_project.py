"""Without HOOKS, ``hookd log`` and ``hookd down`` act on the project the user is in, found as
``hookd install`` finds it (the nearest folder above holding ``.claude/`` or ``.git``): its
modules, and a module kept elsewhere but installed into its ``.claude/``. ``hookd down --all``
stops every daemon. Two projects, real daemons, through the console script."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.daemon.conftest import HOOKS_DIR
from tests.daemon.support import Box, hookd
from tests.daemon.test_decision_log import bash, call, records


def _project(root: Path) -> Path:
    """A project whose ``.claude/hooks.py`` is the daemon guard; the module."""
    module = root / ".claude" / "hooks.py"
    module.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(HOOKS_DIR / "daemon_guard.py", module)
    return module


@pytest.fixture
def two(box: Box) -> Iterator[tuple[Path, Path]]:
    """Projects A (the box's) and B, each installed, each with one denial in its log."""
    a, b = _project(box.project), _project(box.root / "b")
    try:
        for module, command in ((a, "echo forbidden in a"), (b, "echo forbidden in b")):
            root = module.parent.parent
            done = hookd(box, "install", ".claude/hooks.py", cwd=root)
            assert done.returncode == 0, done.stderr
            call(box, module, bash(command))
            records(box, module, 1)
        yield a, b
    finally:
        hookd(box, "down", "--all")


def _logged(box: Box, cwd: Path) -> list[str]:
    done = hookd(box, "log", "--json", cwd=cwd)
    assert done.returncode == 0, done.stderr
    return [json.loads(line)["input"]["tool_input"]["command"] for line in done.stdout.splitlines()]


@pytest.mark.req("R-U11")
def test_log_without_hooks_reads_the_log_of_the_project_you_are_in(
    box: Box, two: tuple[Path, Path]
) -> None:
    a, b = two
    assert _logged(box, box.project) == ["echo forbidden in a"]
    deep = b.parent.parent / "src" / "pkg"
    deep.mkdir(parents=True)
    assert _logged(box, deep) == ["echo forbidden in b"]  # from a folder inside B
    why = hookd(box, "log", "--why", cwd=deep)
    assert 'input: {"command": "echo forbidden in b"}' in why.stdout
    elsewhere = box.root / "c"
    (elsewhere / ".git").mkdir(parents=True)  # a project of its own, with no module
    done = hookd(box, "log", cwd=elsewhere)
    assert done.returncode == 1
    head = f"hookd log: error: no module of {elsewhere} has a decision log; name one: "
    assert done.stderr.startswith(head) and done.stderr.endswith("\n")
    assert sorted(done.stderr[len(head) : -1].split(", ")) == sorted([str(a), str(b)])


@pytest.mark.req("R-U11")
def test_a_module_kept_outside_the_project_belongs_to_the_project_it_is_installed_in(
    box: Box, module: Path
) -> None:
    shared = box.root / "shared" / "guard.py"
    shared.parent.mkdir()
    shutil.copy(HOOKS_DIR / "daemon_guard.py", shared)
    try:
        done = hookd(box, "install", str(shared))  # into the box's project, as install finds it
        assert done.returncode == 0, done.stderr
        assert ".claude/settings.local.json" in done.stdout
        call(box, shared, bash("echo forbidden from outside"))
        records(box, shared, 1)
        assert _logged(box, box.project) == ["echo forbidden from outside"]
        down = hookd(box, "down")
        assert down.stdout == f"hookd: stopped pid {_pid(down.stdout)} serving {shared}\n"
    finally:
        hookd(box, "down", "--all")


def _pid(line: str) -> int:
    return int(line.split("pid ")[1].split(maxsplit=1)[0])


def _running(box: Box, module: Path) -> bool:
    return hookd(box, "status", str(module)).returncode == 0


@pytest.mark.req("R-U12")
def test_down_stops_this_projects_daemon_and_all_stops_every_one(
    box: Box, two: tuple[Path, Path]
) -> None:
    a, b = two
    done = hookd(box, "down")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"hookd: stopped pid {_pid(done.stdout)} serving {a}\n"
    assert not _running(box, a) and _running(box, b)
    again = hookd(box, "down")
    assert again.returncode == 0
    assert again.stdout == (
        f"hookd: no daemon was running for {box.project} (another daemon runs, for other "
        "projects: `hookd down --all` stops every daemon)\n"
    )
    assert _running(box, b)
    both = hookd(box, "down", "--all")
    assert both.stdout == f"hookd: stopped pid {_pid(both.stdout)} serving {b}\n"
    assert not _running(box, b)
    usage = hookd(box, "down", str(a), "--all")
    assert usage.returncode == 2
    assert usage.stderr == "hookd down: error: give HOOKS or --all, not both\n"
