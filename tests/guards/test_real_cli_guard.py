"""The three-line guard module, installed with ``hookd install``, against the real CLIs offline.

Claude Code (print mode, the fake Messages API) and Gemini CLI (its fake-responses mode) each
ask their shell tool for disguised deletions of a folder in the project, then for a harmless
command that only mentions one. The folder must survive, each denial must reach the model with
the guard's reason, and the harmless command must run.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.agents.real.test_gemini import MODULE, Session, _free_port
from tests.daemon.cli_session import installed, run_cli, stream_of
from tests.daemon.support import Box, hookd
from tests.guards.corpus import MODULE as GUARD
from tests.support.claude_cli import find_claude
from tests.support.fake_anthropic import run_tool_then_done
from tests.support.gemini_fake import reply, shell_call

pytestmark = pytest.mark.real_cli

#: Disguises of `rm -rf victim`, each as the model asks for it.
DISGUISED = [
    "rm -r -f victim",
    "cd . && /bin/rm -fr victim",
    "bash -c 'rm -rf victim'",
    "echo victim | xargs rm -rf",
    "find victim -delete",
    "sh -c \"eval 'rm -r -f victim'\"",
]
HARMLESS = 'echo "rm -rf victim" > said.txt'


@pytest.fixture
def outside_tmp() -> Iterator[Path]:
    """A folder outside the system's temporary ones (where the guard allows deletion)."""
    parent = Path.home() / ".cache" / "hookd-tests" / "guard"
    parent.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(dir=parent))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _victim(project: Path) -> Path:
    victim = project / "victim" / "keep.txt"
    victim.parent.mkdir(parents=True)
    victim.write_text("still here\n")
    return victim


@pytest.mark.req("R-G08")
def test_claude_code_is_refused_every_disguise(outside_tmp: Path) -> None:
    claude = find_claude()
    if claude is None:
        pytest.skip("the Claude Code CLI bundled with claude_agent_sdk is not installed")
    box = Box(outside_tmp)
    box.env()
    victim = _victim(box.project)
    (box.project / ".claude").mkdir()
    with installed(box, "destructive_guard.py"):
        # print mode asks before any write in the project: the harmless line only prints
        run = run_cli(claude, box, run_tool_then_done([*DISGUISED, 'echo "rm -rf victim"']))
    assert run.returncode == 0, run.stderr + stream_of(run)
    assert victim.read_text() == "still here\n"
    results = run.tool_results()
    for index, command in enumerate(DISGUISED):
        assert results[index].get("is_error"), (command, run.tool_result_text(index))
        said = run.tool_result_text(index)
        assert "rm-recursive" in said or "find-delete" in said, said
    assert not results[-1].get("is_error"), run.tool_result_text(len(DISGUISED))
    assert run.tool_result_text(len(DISGUISED)).strip() == "rm -rf victim"


@pytest.mark.req("R-G08")
def test_gemini_cli_is_refused_every_disguise(outside_tmp: Path) -> None:
    box = Box(outside_tmp)
    box.env()
    victim = _victim(box.project)
    module = box.project / MODULE
    module.parent.mkdir()
    shutil.copy(GUARD, module)
    session = Session(box, module, _free_port())
    try:
        session.install()
        turns = [shell_call(c) for c in [*DISGUISED, HARMLESS]]
        run = session.gemini(*turns, reply("done"))
    finally:
        hookd(box, "down", MODULE, env=session.env())
    assert run.proc.returncode == 0, run.proc.stderr
    assert victim.read_text() == "still here\n"
    results = run.tool_results()
    assert [r["status"] for r in results] == ["error"] * len(DISGUISED) + ["success"]
    for result in results[:-1]:
        assert result["output"].startswith("Tool execution blocked: "), json.dumps(result)
        assert "rm-recursive" in result["output"] or "find-delete" in result["output"]
    assert (box.project / "said.txt").read_text() == "rm -rf victim\n"
