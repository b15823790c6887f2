"""The README's first command, ``make demo``, on a copy of the checkout: it installs hookd
alone (none of the development tools) and runs the demo."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.req("R-U03")
def test_make_demo_installs_hookd_alone_and_runs_the_demo(tmp_path: Path) -> None:
    if shutil.which("make") is None:
        pytest.fail("make is not installed")  # .ci/run installs it: never skipped
    tracked = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    copy = tmp_path / "hookd"
    for name in filter(None, tracked):
        source = ROOT / name.decode()
        if source.is_file():
            target = copy / name.decode()
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    done = subprocess.run(
        ["make", "demo", f"PYTHON={sys.executable}"],
        cwd=copy, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "DENY (blocked by guard: recursive delete of /)" in done.stdout
    site = next((copy / ".venv-demo" / "lib").glob("python3*/site-packages"))
    installed = {p.name.split("-")[0].lower() for p in site.glob("*.dist-info")}
    assert "hookd" in installed and "trio" in installed
    assert not installed & {"pytest", "mypy", "ruff", "claude_agent_sdk", "hypothesis"}
    assert not (copy / ".venv").exists()
