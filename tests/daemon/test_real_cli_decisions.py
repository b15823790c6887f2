"""The decision log of a real Claude Code CLI session (print mode, offline against the fake
API, through the settings ``hookd install`` wrote): ``hookd log --why`` explains a denied Bash
call, ``hookd log --shadow`` lists a shadow hook's would-be denial of a command that ran, and
``hookd whatif`` replays the session's calls through the module with that hook deciding."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.daemon.cli_session import HOOKS_DIR, installed, run_cli, stream_of
from tests.daemon.support import Box, hookd
from tests.daemon.test_decision_log import records
from tests.support.fake_anthropic import run_tool_then_done

pytestmark = pytest.mark.real_cli


@pytest.mark.req("R-L01", "R-L04", "R-L08", "R-L09", "R-L10", "R-L11")
def test_a_session_is_logged_explained_and_replayed(claude: Path, box: Box) -> None:
    out = box.root / "out"
    out.mkdir()
    forbidden, shadowed = f"touch {out}/forbidden", f"touch {out}/shadowed"
    with installed(box, "daemon_decisions.py") as module:
        run = run_cli(claude, box, run_tool_then_done([forbidden, shadowed]))
        assert run.returncode == 0, run.stderr + stream_of(run)
        assert not (out / "forbidden").exists() and (out / "shadowed").exists()
        (denied,) = records(box, module, 1, "--denied")
        (would,) = records(box, module, 1, "--shadow", "--denied")

        why = hookd(box, "log", ".claude/hooks.py", "--why")
        assert why.returncode == 0, why.stderr
        lines = why.stdout.splitlines()
        assert lines[0] == f"record {denied['id']}: PreToolUse Bash -> deny"
        assert lines[1:3] == ["  decided by: guard", "  reason: forbidden files stay unmade"]
        assert lines[3].startswith("  input: ") and forbidden in json.loads(lines[3][9:])["command"]
        assert re.fullmatch(r"[0-9a-f]{12}", denied["version"])
        assert lines[4].startswith(f"  module version: {denied['version']}, at ")

        shadow = hookd(box, "log", ".claude/hooks.py", "--shadow")
        assert shadow.returncode == 0, shadow.stderr
        row = shadow.stdout.splitlines()[1].split()  # denials first
        assert row[5:8] == ["deny", "watch", "shadowed"]
        assert would["input"]["tool_input"]["command"] == shadowed

        candidate = box.project / "candidate.py"
        text = (HOOKS_DIR / "daemon_decisions.py").read_text()
        candidate.write_text(text.replace("@hookd.shadow\n", ""))
        before = json.loads(hookd(box, "status", "--json").stdout)[0]["pid"]
        done = hookd(box, "whatif", "candidate.py", ".claude/hooks.py")
        assert done.returncode == 3, done.stderr
        assert json.loads(hookd(box, "status", "--json").stdout)[0]["pid"] == before
    block, summary = done.stdout.split("\n\n")
    assert re.match(r"record \d+: PreToolUse Bash \(claude, session ", block)
    assert f'"command": "{shadowed}"' in block.splitlines()[1]
    assert block.splitlines()[2:] == [
        "  was: allow by guard: not forbidden",
        "  now: deny by watch: shadowed files would stay unmade",
    ]
    assert re.fullmatch(r"\d+ calls replayed, 1 changed: allow->deny 1\n", summary)
