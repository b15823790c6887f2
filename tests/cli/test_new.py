"""``hookd new``: a starter module and a test that passes, then fails readably when broken."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.console import hookd as run_console
from tests.testing.project import run_pytest


@pytest.mark.req("R-709", "R-A18")
def test_new_writes_a_module_and_a_test_that_passes(tmp_path: Path) -> None:
    done = run_console("new", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "wrote hooks.py and test_hooks.py"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hooks.py", "test_hooks.py"]
    tests = run_pytest(tmp_path, "-p", "no:asyncio")
    assert tests.returncode == 0, tests.stdout + tests.stderr
    assert "25 passed" in tests.stdout  # 5, then the guard in each of the 10 agents twice
    check = run_console("check", "hooks.py", cwd=tmp_path)
    assert check.returncode == 0, check.stderr
    assert "destructive_commands" in check.stdout and "guard" in check.stdout
    assert "rules" in check.stdout


@pytest.mark.req("R-709")
def test_a_guard_that_lets_rm_rf_through_fails_readably(tmp_path: Path) -> None:
    assert run_console("new", cwd=tmp_path).returncode == 0
    module = tmp_path / "hooks.py"
    module.write_text(module.read_text().replace("[destructive_commands(), guard]", "[guard]"))
    tests = run_pytest(tmp_path, "-p", "no:asyncio")
    assert tests.returncode == 1
    assert "12 failed, 13 passed" in tests.stdout  # the guard's 2 tests and 10 agents' refusals
    assert (
        "AssertionError: FireResult(PreToolUse: decision='none', output={}, "
        "hooks=[<hook_1 guard: ok, output={}>])"
    ) in tests.stdout
    assert "assert 'none' == 'deny'" in tests.stdout


@pytest.mark.req("R-709")
def test_new_with_a_module_name_and_a_folder(tmp_path: Path) -> None:
    done = run_console("new", "sub/guard.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "sub" / "test_guard.py").read_text().count('/ "guard.py"') == 1
    assert run_console("new", "deeper/policy", cwd=tmp_path).returncode == 0
    assert (tmp_path / "deeper" / "test_policy.py").is_file()
    (tmp_path / "folder").mkdir()
    assert run_console("new", "folder", cwd=tmp_path).returncode == 0
    assert (tmp_path / "folder" / "test_hooks.py").is_file()
    tests = run_pytest(tmp_path, "-p", "no:asyncio")
    assert "75 passed" in tests.stdout, tests.stdout + tests.stderr


@pytest.mark.req("R-709")
def test_a_module_in_a_dot_folder_is_tested_from_where_pytest_looks(tmp_path: Path) -> None:
    done = run_console("new", ".claude/hooks", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "wrote .claude/hooks.py and test_hooks.py"
    assert "hookd install .claude/hooks.py" in done.stdout and "hookd serve" not in done.stdout
    assert sorted(p.name for p in (tmp_path / ".claude").iterdir()) == ["hooks.py"]
    tests = run_pytest(tmp_path, "-p", "no:asyncio")
    assert "25 passed" in tests.stdout, tests.stdout + tests.stderr


@pytest.mark.req("R-709")
def test_existing_files_are_kept_unless_forced(tmp_path: Path) -> None:
    (tmp_path / "hooks.py").write_text("# mine\n")
    done = run_console("new", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr == ("hookd new: error: hooks.py already exists (use --force to overwrite)\n")
    assert (tmp_path / "hooks.py").read_text() == "# mine\n"
    assert not (tmp_path / "test_hooks.py").exists()
    assert run_console("new", "--force", cwd=tmp_path).returncode == 0
    assert "def guard" in (tmp_path / "hooks.py").read_text()


def test_an_unwritable_place_is_one_clear_line(tmp_path: Path) -> None:
    (tmp_path / "blocker").write_text("a file, not a folder\n")
    done = run_console("new", "blocker/inner", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith("hookd new: error: ")
    assert len(done.stderr.splitlines()) == 1
    assert "Traceback" not in done.stderr


def test_the_test_extra_holds_what_the_starter_tests_need() -> None:
    """`pip install 'hookd[test]'` gives the environment `hookd new`'s tests run in."""
    import re
    import tomllib

    root = Path(__file__).resolve().parents[2]
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    names = {re.split(r"[<>=!~ \[]", r)[0] for r in project["optional-dependencies"]["test"]}
    assert names == {"pytest", "pytest-trio"}
    readme = (root / "README.md").read_text()
    assert "pip install '/path/to/hookd[test]'" in readme
