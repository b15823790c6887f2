"""hookd's plugin (hookd/agents/plugins/hookd-opencode.ts) in the real OpenCode, offline, against a
stand-in daemon (tests/support/pi_daemon.py: hookd's own route and the registered dialect, in
the test process), for what a real daemon would not answer on cue: a rewrite, context after a
tool's output and before the prompt, a ready file whose process started at another time, and
failing open. The plugin proves the listener by the ready file and /proc before it sends the
token, exactly as it would the daemon. The real daemon, which the plugin starts itself, and Kilo
CLI: tests/agents/real/test_opencode.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.daemon.support import Box
from tests.support.opencode_drive import Call, Step, drive, write_plugin
from tests.support.pi_daemon import stand_in

pytestmark = pytest.mark.real_cli

ROOT = Path(__file__).resolve().parents[3]
GUARD = ROOT / "tests" / "hooks" / "agent_guard.py"
ROUTES = {"tool.execute.before": (10, True), "tool.execute.after": (10, False),
          "chat.message": (10, True), "session.created": (10, False)}  # fmt: skip


def victim(box: Box) -> Path:
    kept = box.project / "victim_dir" / "precious.txt"
    kept.parent.mkdir(parents=True)
    kept.write_text("still here\n")
    return kept


@pytest.mark.req("R-A83")
def test_the_plugin_asks_the_daemon_and_obeys(tmp_path: Path) -> None:
    box = Box(tmp_path)
    box.env()
    with stand_in(tmp_path / "daemon", GUARD) as daemon:
        # no agent given: the plugin folder tells which CLI it serves
        write_plugin(box, "opencode", "hookd.ts", daemon.plugin("", routes=ROUTES))
        kept = victim(box)
        new = box.project / "new.txt"
        steps: list[Step] = [
            "rm -rf victim_dir", "python -c pass; echo ran > ran.txt", "git status",
            Call("write", {"filePath": str(new), "content": "hello\n"}),
        ]  # fmt: skip
        run = drive(box, "opencode", steps)
    assert run.exit_code == 0, run.stderr[-2000:]
    assert kept.read_text() == "still here\n"
    denied, _rewritten, git, wrote = run.tool_results
    assert denied == "no recursive deletes"
    assert (box.project / "ran.txt").read_text() == "ran\n"  # python3 -c pass; echo ran ...
    assert "the main branch is protected" in git  # a PreToolUse context, after the output
    assert wrote.startswith("Wrote file") and new.read_text() == "hello\n"
    targets = daemon.events()
    assert {"opencode/session.created", "opencode/chat.message"} <= set(targets)
    before = [b for t, b, _ in daemon.received if t == "opencode/tool.execute.before"]
    assert [b["tool_name"] for b in before] == ["bash", "bash", "bash", "write"]
    assert before[0]["tool_input"] == {"command": "rm -rf victim_dir"}
    assert before[0]["cwd"] == str(box.project) and before[0]["agent"] == "opencode"
    assert before[0]["session_id"].startswith("ses_") and before[0]["tool_use_id"]
    assert {h["authorization"] for _, _, h in daemon.received} == {f"Bearer {daemon.token}"}
    prompts = [r for r in run.requests if r.get("tools")]
    user = [m for m in prompts[0]["messages"] if m.get("role") == "user"]
    assert "run the tests first" in json.dumps(user)  # the prompt's context, a text part


@pytest.mark.req("R-A83")
def test_a_ready_file_of_another_start_time_gets_no_token(tmp_path: Path) -> None:
    box = Box(tmp_path)
    box.env()
    with stand_in(tmp_path / "daemon", GUARD) as daemon:
        daemon.write_files(ticks=1)  # this pid, another start time: a recycled pid
        routes = {"tool.execute.before": (10, True)}  # a prompt refused would end the run first
        write_plugin(box, "opencode", "hookd.ts", daemon.plugin("opencode", routes=routes))
        kept = victim(box)
        run = drive(box, "opencode", ["rm -rf victim_dir"])
        assert daemon.received == []
    assert kept.read_text() == "still here\n"
    (result,) = run.tool_results
    assert result.startswith(f"hookd: the hookd daemon of {daemon.ready_file} (pid ")
    assert result.endswith(f"is not running; port {daemon.port} may be another program's")


@pytest.mark.req("R-A83")
def test_fail_open_lets_the_call_run_without_a_daemon(tmp_path: Path) -> None:
    box = Box(tmp_path)
    box.env()
    with stand_in(tmp_path / "daemon", GUARD) as daemon:
        daemon.ready_file.unlink()
        source = daemon.plugin("opencode", routes={"tool.execute.before": (10, True)},
                               fail_open=True)  # fmt: skip
        write_plugin(box, "opencode", "hookd.ts", source)
        (box.project / "victim_dir").mkdir()
        run = drive(box, "opencode", ["rm -rf victim_dir"])
    assert run.exit_code == 0
    assert not (box.project / "victim_dir").exists()
