"""The file watcher: returns after a change to a wanted file, however the editor saves it."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import trio

from hookd.daemon.watcher import InotifyWatcher, Watcher, WatchfilesWatcher, open_watcher

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="inotify is Linux's")

WAIT_S = 10.0


async def changed_after(
    tmp_path: Path, wanted: set[str], edit: Callable[[], object], watcher: Watcher | None = None
) -> list[str]:
    """Watch ``tmp_path``; run ``edit`` once watching; the order in which things happened."""
    if watcher is None:
        watcher = open_watcher()
        assert isinstance(watcher, InotifyWatcher)
    watcher.watch(str(tmp_path))
    happened: list[str] = []
    try:
        with trio.fail_after(WAIT_S):
            async with trio.open_nursery() as nursery:

                async def wait() -> None:
                    await watcher.changed(lambda: wanted)
                    happened.append("changed")

                nursery.start_soon(wait)
                await trio.testing.wait_all_tasks_blocked()
                edit()
                happened.append("edited")
    finally:
        watcher.close()
    return happened


async def test_a_write_of_a_wanted_file_is_a_change(tmp_path: Path) -> None:
    target = tmp_path / "hooks.py"
    target.write_text("v1\n")
    done = await changed_after(tmp_path, {str(target)}, lambda: target.write_text("v2\n"))
    assert done == ["edited", "changed"]


async def test_a_save_by_rename_is_a_change(tmp_path: Path) -> None:
    target = tmp_path / "policy.py"
    target.write_text("v1\n")

    def save() -> None:
        (tmp_path / "tmp").write_text("v2\n")
        (tmp_path / "unrelated.txt").write_text("x\n")
        os.replace(tmp_path / "tmp", target)

    done = await changed_after(tmp_path, {str(target)}, save)
    assert done == ["edited", "changed"]


async def test_a_touch_is_a_change(tmp_path: Path) -> None:
    target = tmp_path / "hooks.py"
    target.write_text("v1\n")
    done = await changed_after(tmp_path, {str(target)}, lambda: os.utime(target))
    assert done == ["edited", "changed"]


async def test_a_wait_ends_when_cancelled(tmp_path: Path) -> None:
    watcher = open_watcher()
    watcher.watch(str(tmp_path))
    try:
        with trio.move_on_after(0.01) as scope:
            await watcher.changed(lambda: {str(tmp_path / "hooks.py")})
    finally:
        watcher.close()
    assert scope.cancelled_caught


async def test_the_watchfiles_fallback_sees_a_write(tmp_path: Path) -> None:
    target = tmp_path / "hooks.py"
    target.write_text("v1\n")

    def edit() -> None:
        target.write_text("v2\n")

    watcher = WatchfilesWatcher()
    done = await changed_after(tmp_path, {str(target)}, edit, watcher)
    assert done == ["edited", "changed"]
