"""An uninstall and a new install keep the decision log (the history ``hookd log`` shows and
``hookd whatif`` replays); ``hookd uninstall --purge`` removes it with the module's state, and
says so. Through the console script, a real daemon, real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.daemon.support import Box, hookd
from tests.daemon.test_decision_log import bash, call, records


def _state_files(box: Box) -> list[str]:
    (state,) = box.daemon_dirs()
    return sorted(p.name for p in state.iterdir())


@pytest.mark.req("R-U10")
def test_a_reinstall_keeps_the_history_and_purge_removes_it(box: Box, module: Path) -> None:
    hooks = str(module)
    assert hookd(box, "install", hooks).returncode == 0
    call(box, module, bash("echo forbidden once"))
    (first,) = records(box, module, 1)
    assert first["decision"] == "deny"

    done = hookd(box, "uninstall", hooks)
    assert done.returncode == 0, done.stderr
    store = box.daemon_dirs()[0] / "decisions.sqlite3"
    assert done.stdout.splitlines()[-1] == (
        f"hookd: the decision log is kept (1 record, `hookd log {hooks}` reads it, "
        f"`hookd uninstall --purge {hooks}` removes it): {store}"
    )
    assert _state_files(box) == ["decisions.sqlite3"]  # token, key, log and record gone
    assert not (box.project / ".claude" / "settings.local.json").exists()

    assert hookd(box, "install", hooks).returncode == 0
    shown = hookd(box, "log", hooks, "--json")
    assert [json.loads(line)["id"] for line in shown.stdout.splitlines()] == [1]
    call(box, module, bash("echo forbidden twice"))
    assert [r["id"] for r in records(box, module, 2)] == [1, 2]  # the history goes on

    done = hookd(box, "uninstall", "--purge", hooks)
    assert done.returncode == 0, done.stderr
    state = store.parent
    assert done.stdout.splitlines()[-1] == (
        f"hookd: --purge: removed the decision log (2 records) and the rest of the module's "
        f"state ({state})"
    )
    assert box.daemon_dirs() == []
    gone = hookd(box, "log", hooks)
    assert gone.returncode == 1 and "no decisions recorded yet" in gone.stderr


@pytest.mark.req("R-U10", "R-D25")
def test_a_log_without_records_is_no_history(box: Box, module: Path) -> None:
    hooks = str(module)
    assert hookd(box, "install", hooks).returncode == 0
    assert "decisions.sqlite3" in _state_files(box)  # the daemon opened its store
    done = hookd(box, "uninstall", hooks)
    assert done.returncode == 0, done.stderr
    assert "decision log" not in done.stdout
    assert box.daemon_dirs() == []
    again = hookd(box, "install", hooks)
    assert again.returncode == 0
    done = hookd(box, "uninstall", hooks, "--purge")
    assert done.stdout.splitlines()[-1].startswith("hookd: --purge: removed the module's state (")
    assert box.daemon_dirs() == []


@pytest.mark.req("R-U10")
def test_purge_waits_while_another_scope_uses_the_daemon(box: Box, module: Path) -> None:
    hooks = str(module)
    for scope in ("local", "user"):
        assert hookd(box, "install", hooks, "--scope", scope).returncode == 0
    call(box, module, bash("echo forbidden"))
    records(box, module, 1)
    done = hookd(box, "uninstall", hooks, "--purge")
    assert done.returncode == 0, done.stderr
    assert "the daemon keeps serving" in done.stdout
    assert "--purge: nothing removed while the daemon serves those" in done.stdout
    assert "decisions.sqlite3" in _state_files(box)
    done = hookd(box, "uninstall", hooks, "--scope", "user", "--purge")
    assert "--purge: removed the decision log (1 record)" in done.stdout
    assert box.daemon_dirs() == []
