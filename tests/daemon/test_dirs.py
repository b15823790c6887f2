"""hookd's own reading of the XDG directories agrees with platformdirs (R-D25)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from hookd.daemon import paths, where

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the XDG fast path is Linux's")


def _runtime(tmp_path: Path, mode: int = 0o700) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    run.chmod(mode)
    return run


def _setenv(monkeypatch: pytest.MonkeyPatch, **values: str | None) -> None:
    for name, value in values.items():
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)


@pytest.mark.req("R-D25")
@pytest.mark.parametrize("state_env", [True, False])
def test_the_usual_case_is_read_without_platformdirs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, state_env: bool
) -> None:
    run = _runtime(tmp_path)
    state = str(tmp_path / "state") if state_env else None
    home = str(tmp_path / "home")
    _setenv(monkeypatch, HOME=home, XDG_STATE_HOME=state, XDG_RUNTIME_DIR=str(run))
    found = where.xdg_dirs()
    assert found is not None
    assert found == paths._platform_dirs()
    assert found[1] == str(run / "hookd")


@pytest.mark.req("R-D25")
@pytest.mark.parametrize("case", ["open-mode", "missing", "symlink", "relative-state"])
def test_anything_unusual_is_left_to_platformdirs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    run = _runtime(tmp_path, 0o755 if case == "open-mode" else 0o700)
    if case == "missing":
        run = tmp_path / "gone"
    elif case == "symlink":
        os.symlink(run, tmp_path / "link")
        run = tmp_path / "link"
    state = "relative/state" if case == "relative-state" else str(tmp_path / "state")
    home = "relative-home" if case == "relative-state" else str(tmp_path / "home")
    _setenv(monkeypatch, HOME=home, XDG_STATE_HOME=state, XDG_RUNTIME_DIR=str(run))
    assert where.xdg_dirs() is None


@pytest.mark.req("R-D25")
def test_daemon_paths_land_where_platformdirs_puts_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = _runtime(tmp_path)
    _setenv(monkeypatch, HOME=str(tmp_path), XDG_STATE_HOME=None, XDG_RUNTIME_DIR=str(run))
    module = tmp_path / "hooks.py"
    module.write_text("hooks = {}\n")
    got = paths.daemon_paths(module)
    state, runtime = paths._platform_dirs()
    assert got.run_dir == Path(runtime)
    assert got.state_dir.parent.parent == Path(state) == tmp_path / ".local" / "state" / "hookd"
