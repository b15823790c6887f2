"""The README's "Testing your hooks" example, run exactly as written, green and then broken."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.cli.console import HOOKD
from tests.testing.project import run_pytest

README = Path(__file__).resolve().parents[2] / "README.md"
SECTION = "## Testing your hooks"
#: The README's failure excerpt shows the session file under this folder.
SHOWN_FOLDER = "/home/me/proj"


def section() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(SECTION)
    end = text.index("\n## ", start + len(SECTION))
    return text[start:end]


def blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", section(), re.DOTALL)


def write_example(folder: Path) -> None:
    """Each python block starts with ``# FILE``: write it there."""
    for block in blocks("python"):
        name = block.splitlines()[0].removeprefix("# ").strip()
        (folder / name).write_text(block)
    (folder / "pytest.ini").write_text("[pytest]\n")


def record_session(folder: Path) -> None:
    """``session.jsonl``: hookd serving the example, recorded as its docs say."""
    requests = [
        '{"type":"control_request","request_id":"1","request":{"subtype":"initialize"}}',
        '{"type":"control_request","request_id":"2","request":{"subtype":"hook_callback",'
        '"callback_id":"hook_1","input":{"session_id":"s","transcript_path":"/t","cwd":"/tmp",'
        '"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"},'
        '"tool_use_id":"t1"},"tool_use_id":"t1"}}',
    ]
    subprocess.run(
        [HOOKD, "serve", "hooks.py"],
        input="\n".join(requests) + "\n",
        capture_output=True,
        text=True,
        cwd=folder,
        env={"HOOKD_RECORD": "session.jsonl", "PATH": "/usr/bin:/bin"},
        timeout=60,
        check=True,
    )


@pytest.mark.req("R-701", "R-707", "R-708")
def test_the_readme_example_passes_then_fails_readably(tmp_path: Path) -> None:
    write_example(tmp_path)
    record_session(tmp_path)
    green = run_pytest(tmp_path, "-p", "no:asyncio")
    assert green.returncode == 0, green.stdout + green.stderr
    assert "6 passed" in green.stdout
    hooks = tmp_path / "hooks.py"
    hooks.write_text(hooks.read_text().replace('"rm -rf /" in command', '"rm -rf /tmp" in command'))
    red = run_pytest(tmp_path, "-p", "no:asyncio")
    assert "2 failed, 4 passed" in red.stdout, red.stdout
    (excerpt,) = blocks("text")
    for line in excerpt.splitlines():
        assert line.replace(SHOWN_FOLDER, str(tmp_path)) in red.stdout.splitlines()
