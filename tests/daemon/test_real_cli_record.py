"""``hookd record -- claude`` where ``hookd install`` wrote the settings: the daemon records the
wrapped session, whether it was running or not, into a transcript ``hookd replay`` accepts, and
nothing of the sessions after it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.daemon.cli_session import SESSION_TIMEOUT_S, cli_environment, installed, run_cli
from tests.daemon.support import HOOKD, Box, hookd
from tests.support.claude_cli import MODEL
from tests.support.fake_anthropic import FakeAnthropic, run_tool_then_done

pytestmark = pytest.mark.real_cli


def record_session(claude: Path, box: Box, out: Path) -> subprocess.CompletedProcess[str]:
    """``hookd record --out OUT -- claude -p ...`` in the project, against the fake API."""
    with FakeAnthropic(run_tool_then_done(["echo recorded"])) as api:
        argv = [
            HOOKD, "record", "--out", str(out), "--",
            str(claude), "-p", "go", "--output-format", "stream-json", "--verbose",
            "--system-prompt", "", "--model", MODEL, "--permission-mode", "default",
        ]  # fmt: skip
        return subprocess.run(
            argv, cwd=box.project, env=cli_environment(box, api), stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=SESSION_TIMEOUT_S, check=False,
        )  # fmt: skip


def entries(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    header, *lines = [json.loads(line) for line in path.read_text().splitlines()]
    return header, lines


@pytest.mark.req("R-D63", "R-D64")
@pytest.mark.parametrize("daemon", ["running", "stopped"])
def test_record_takes_exactly_the_wrapped_session(
    claude: Path, box: Box, tmp_path: Path, daemon: str
) -> None:
    out = tmp_path / "session.jsonl"
    with installed(box, "daemon_guard.py"):
        if daemon == "stopped":
            assert "stopped pid" in hookd(box, "down").stdout
        done = record_session(claude, box, out)
        assert done.returncode == 0, done.stderr
        messages = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
        (session_id,) = {m["session_id"] for m in messages if m.get("type") == "result"}
        size = out.stat().st_size
        later = run_cli(claude, box, run_tool_then_done(["echo later"]))
        assert later.returncode == 0, later.stderr
        assert out.stat().st_size == size  # the daemon records no session after it
    header, lines = entries(out)
    assert header["mode"] == "http"
    requests = [e for e in lines if e["dir"] == "cli->hookd"]
    events = [e["http"]["target"].split("?")[0] for e in requests]
    assert "/hook/SessionStart" in events and events.count("/hook/PreToolUse") == 1
    assert {e["msg"]["session_id"] for e in requests} == {session_id}
    assert len(lines) == 2 * len(requests)  # each answered
    assert f"{len(requests)} hook requests recorded into {out}" in done.stderr
    replay = hookd(box, "replay", str(out))
    assert replay.returncode == 0, replay.stdout + replay.stderr


@pytest.mark.req("R-D64")
def test_a_daemon_started_under_hookd_record_in_env_mode_does_not_record(
    claude: Path, box: Box, tmp_path: Path
) -> None:
    out = tmp_path / "inherited.jsonl"
    with installed(box, "daemon_guard.py"):
        assert "stopped pid" in hookd(box, "down").stdout
        env = box.env(HOOKD_RECORD=str(out))
        run = run_cli(claude, box, run_tool_then_done(["echo x"]), env=env)
        assert run.returncode == 0, run.stderr
        assert hookd(box, "status").returncode == 0  # the shim started the daemon again
    assert not out.exists()
