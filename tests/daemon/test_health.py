"""A quarantined hook through ``hookd up``'s daemon: ``hookd status`` shows it, ``hookd log``
records ``quarantined``, and a hot reload starts it clean."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.daemon.support import Box, hookd, wait_for_line
from tests.daemon.test_decision_log import records
from tests.daemon.test_lifecycle import free_port

HOOKS_DIR = Path(__file__).resolve().parents[1] / "hooks"
WAIT_S = 30.0
FLAKY = {
    "session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
    "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Flaky",
    "tool_input": {"command": "ls"}, "tool_use_id": "toolu_1",
}  # fmt: skip


@pytest.fixture
def module(box: Box) -> Iterator[Path]:
    target = box.project / ".claude" / "hooks.py"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(HOOKS_DIR / "health.py", target)
    yield target
    hookd(box, "down")


def reason(box: Box, module: Path, env: dict[str, str]) -> str:
    done = hookd(
        box, "call", "PreToolUse", "--hooks", str(module), stdin=json.dumps(FLAKY).encode(),
        env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    text: str = answer["hookSpecificOutput"]["permissionDecisionReason"]
    return text


@pytest.mark.req("R-L34", "R-L35", "R-L36")
def test_status_log_and_reload_of_a_quarantined_hook(box: Box, module: Path) -> None:
    env = box.env(HEALTH_DIR=str(box.root))
    assert hookd(box, "up", str(module), "--port", str(free_port()), env=env).returncode == 0
    (state,) = box.daemon_dirs()
    wait_for_line(state / "daemon.log", "reload.watching", WAIT_S)
    reasons = [reason(box, module, env) for _ in range(6)]
    assert reasons[:5] == ["hookd: hook flaky raised an exception: boom"] * 5
    assert reasons[5].startswith("hookd: hook flaky is quarantined after 5 failures in 60s")
    assert len((box.root / "calls").read_text().splitlines()) == 5

    status = hookd(box, "status", str(module), env=env).stdout
    (line,) = [line for line in status.splitlines() if "quarantined:" in line]
    assert line.startswith("  quarantined: flaky (hook_1) until 20")
    assert line.endswith(", after 5 failures in 60s (last: raised an exception: boom)")

    logged = records(box, module, 6)
    assert [r["failure"] for r in logged] == ["raised"] * 5 + ["quarantined"]
    assert logged[5]["decision"] == "deny" and logged[5]["hooks"] == ["flaky"]
    assert logged[5]["reason"] == reasons[5]

    module.write_text(module.read_text() + "\n# edited\n")
    wait_for_line(state / "daemon.log", "reload.done", WAIT_S)
    assert reason(box, module, env) == "hookd: hook flaky raised an exception: boom"  # it ran
    assert len((box.root / "calls").read_text().splitlines()) == 6
    status = hookd(box, "status", str(module), env=env).stdout
    assert "quarantined:" not in status
