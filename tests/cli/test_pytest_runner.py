"""``hookd test`` runs pytest with hookd's own Python, whatever installed hookd; without
pytest beside hookd it says in one line what installs it."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.cli.pytest_runner import install_hint
from tests.cli.console import hookd


@pytest.mark.req("R-U02")
def test_hookd_test_runs_the_starter_tests_hookd_new_wrote(tmp_path: Path) -> None:
    wrote = hookd("new", str(tmp_path) + "/")
    assert wrote.returncode == 0
    assert f"next: run `hookd test {tmp_path}/test_hooks.py`" in wrote.stdout
    done = hookd("test", "-q", "-p", "no:cacheprovider", "-p", "no:asyncio", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "25 passed" in done.stdout
    failing = hookd("test", "-q", "-k", "nothing_is_called_this", cwd=tmp_path)
    assert failing.returncode == 5  # pytest's own exit code: no test ran


@pytest.mark.req("R-U02")
def test_without_pytest_beside_hookd_one_line_says_what_installs_it(tmp_path: Path) -> None:
    hidden = tmp_path / "site"
    hidden.mkdir()
    (hidden / "sitecustomize.py").write_text("import sys\nsys.modules['pytest'] = None\n")
    done = hookd("test", cwd=tmp_path, env={"PYTHONPATH": str(hidden)})
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith("hookd test: error: pytest is not installed beside hookd (")
    assert line.endswith("-m pip install 'pytest>=8' pytest-trio")


@pytest.mark.req("R-U02")
def test_the_hint_fits_how_hookd_was_installed() -> None:
    uv = "/home/u/.local/share/uv/tools/hookd"
    assert install_hint(uv) == "uv tool install --force 'hookd[test]'"
    assert install_hint("/home/u/.local/share/pipx/venvs/hookd") == (
        "pipx inject hookd pytest pytest-trio"
    )
    assert install_hint("/home/u/project/.venv").endswith(" -m pip install 'pytest>=8' pytest-trio")


@pytest.mark.req("R-U02")
def test_the_readme_shows_hookd_test_after_hookd_new() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert "\nhookd new          # " in readme
    assert "\nhookd test         # green; now edit hooks.py and add tests\n" in readme
