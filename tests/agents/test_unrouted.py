"""An event added to the module after ``hookd install --agent X`` is one X's hook file does
not route: the daemon says so after the reload, in ``hookd status`` and once per session in
the next answer the agent gets (a ``systemMessage`` through its dialect), until an install
again routes it. Through the console script, a real daemon, and the entries the install
wrote, run as the agents run them."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from hookd.agents import Encoded
from tests.agents.test_dialects import codex_problem
from tests.agents.test_install_agents import FILES, GEMINI_CALL, ours, run_entry
from tests.daemon.support import Box, hookd, read_settings
from tests.daemon.test_reload import wait_for_count

WAIT_S = 30.0
GUARD = """
from hookd import HookMatcher, deny


async def guard(input_data, tool_use_id, context):
    if "forbidden" in input_data["tool_input"].get("command", ""):
        return deny("forbidden by the guard")
    return None


hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard])]}
"""
ADDED = """

async def audit(input_data, tool_use_id, context):
    return None


hooks["PostToolUse"] = [HookMatcher(hooks=[audit])]
hooks["Notification"] = [HookMatcher(hooks=[audit])]
"""
CODEX_CALL = {
    "session_id": "s1", "turn_id": "t1", "transcript_path": None, "cwd": "/tmp",
    "hook_event_name": "PreToolUse", "model": "gpt-5-codex", "permission_mode": "default",
    "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "call_1",
}  # fmt: skip
CODEX_LINE = (
    "codex: PostToolUse is in the module but not in .codex/hooks.json: run `hookd install "
    "--agent codex .claude/hooks.py` again"
)
GEMINI_LINE = (
    "gemini: Notification, PostToolUse (AfterTool) are in the module but not in "
    ".gemini/settings.json: run `hookd install --agent gemini .claude/hooks.py` again"
)


@pytest.fixture
def box(tmp_path: Path) -> Box:
    b = Box(tmp_path)
    b.env()
    return b


def _edited(box: Box, module: Path, count: int) -> None:
    """Append the new events to the module and wait for the daemon's ``count``-th reload."""
    with module.open("a") as f:
        f.write(ADDED)
    (state,) = box.daemon_dirs()
    wait_for_count(state / "daemon.log", "reload.done", count, WAIT_S)


def _said(box: Box, *args: str) -> list[str]:
    done = hookd(box, "status", *args)
    assert done.returncode == 0, done.stderr
    return [line.strip() for line in done.stdout.splitlines() if "is in the module" in line
            or "are in the module" in line]  # fmt: skip


def _entry(box: Box, agent: str, event: str) -> str:
    found = ours(read_settings(box.project / FILES[agent]), event)
    return str(found["command"])


def _answer(command: str, payload: dict[str, Any], box: Box) -> dict[str, Any] | None:
    done = run_entry(command, payload, box.env())
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if done.stdout else None


@pytest.mark.req("R-U13", "R-U14", "R-U15")
def test_an_event_added_after_install_is_said_until_an_install_routes_it(box: Box) -> None:
    module = box.project / ".claude" / "hooks.py"
    module.parent.mkdir(parents=True)
    module.write_text(textwrap.dedent(GUARD))
    try:
        done = hookd(box, "install", "--agent", "claude", "--agent", "codex", "--agent",
                     "gemini", ".claude/hooks.py")  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert _said(box) == []
        _edited(box, module, 1)
        assert _said(box) == [CODEX_LINE, GEMINI_LINE]  # Claude Code routes every event
        assert _said(box, "--agent", "codex") == [CODEX_LINE]
        doctor = hookd(box, "doctor").stdout.splitlines()
        at = doctor.index(
            "  FAIL  events: PostToolUse in the module, not in .codex/hooks.json: codex never "
            "calls them"
        )
        assert doctor[at + 1] == "        fix: hookd install --agent codex .claude/hooks.py"
        (status,) = json.loads(hookd(box, "status", "--json").stdout)
        assert [(u["agent"], u["events"]) for u in status["unrouted"]] == [
            ("codex", ["PostToolUse"]), ("gemini", ["Notification", "PostToolUse"])
        ]  # fmt: skip

        codex = _entry(box, "codex", "PreToolUse")
        told = _answer(codex, CODEX_CALL, box)
        assert told == {"systemMessage": f"hookd: {CODEX_LINE}"}
        assert codex_problem("PreToolUse", Encoded(json.dumps(told).encode())) is None
        assert _answer(codex, CODEX_CALL, box) is None  # once per session
        assert _answer(codex, {**CODEX_CALL, "session_id": "s2"}, box) == told
        gemini = _answer(_entry(box, "gemini", "BeforeTool"), GEMINI_CALL, box)
        assert gemini == {"decision": "deny", "reason": "forbidden by the guard",
                          "systemMessage": f"hookd: {GEMINI_LINE}"}  # fmt: skip
        call = {**CODEX_CALL, "session_id": "s3", "transcript_path": "/tmp/t.jsonl"}
        claude = hookd(box, "call", "PreToolUse", "--hooks", str(module),
                       stdin=json.dumps(call).encode())  # fmt: skip
        assert claude.returncode == 0, claude.stderr
        assert json.loads(claude.stdout) == {}  # Claude Code's local settings route every event

        again = hookd(box, "install", "--agent", "codex", ".claude/hooks.py")
        assert again.returncode == 0, again.stderr
        assert _said(box) == [GEMINI_LINE]
        assert _answer(codex, {**CODEX_CALL, "session_id": "s4"}, box) is None
    finally:
        hookd(box, "down", "--all")


@pytest.mark.req("R-U13", "R-U14")
def test_claude_codes_project_scope_is_told_through_the_call_shim(box: Box) -> None:
    module = box.project / ".claude" / "hooks.py"
    module.parent.mkdir(parents=True)
    module.write_text(textwrap.dedent(GUARD))
    try:
        done = hookd(box, "install", "--scope", "project", ".claude/hooks.py")
        assert done.returncode == 0, done.stderr
        hookd(box, "up", str(module))
        _edited(box, module, 1)
        line = (
            "claude: Notification, PostToolUse are in the module but not in "
            ".claude/settings.json: run `hookd install --scope project .claude/hooks.py` again"
        )
        assert _said(box) == [line]
        call = {**CODEX_CALL, "transcript_path": "/tmp/t.jsonl"}
        answers = [
            json.loads(hookd(box, "call", "PreToolUse", "--hooks", str(module),
                             stdin=json.dumps(call).encode()).stdout)
            for _ in range(2)
        ]  # fmt: skip
        assert answers == [{"systemMessage": f"hookd: {line}"}, {}]
    finally:
        hookd(box, "down", "--all")
