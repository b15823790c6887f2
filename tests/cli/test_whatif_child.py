"""The candidate's side of ``hookd whatif``, in-process: one stored call in, the decision log's
words out, through the testing kit and the record's agent dialect."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import hookd.testing
from hookd.cli.whatif_child import answer

MODULE = """
from hookd import HookMatcher, add_context, deny


async def guard(input_data, tool_use_id, context):
    if "rm -rf" in input_data["tool_input"].get("command", ""):
        return deny("no recursive deletes")
    return None


async def crashes(input_data, tool_use_id, context):
    raise RuntimeError("bug")


async def note(input_data, tool_use_id, context):
    return add_context("remember the tests", event="UserPromptSubmit")


hooks = {
    "PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard]),
                   HookMatcher(matcher="Write", hooks=[crashes])],
    "UserPromptSubmit": [HookMatcher(hooks=[note])],
}
"""


def stored(event: str, **fields: Any) -> dict[str, Any]:
    return {
        "session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
        "permission_mode": "default", "hook_event_name": event, **fields,
    }  # fmt: skip


@pytest.fixture
def hooks(tmp_path: Path) -> hookd.testing.Hooks:
    path = tmp_path / "candidate.py"
    path.write_text(MODULE)
    return hookd.testing.load(str(path))


@pytest.mark.req("R-L10")
@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_a_stored_call_is_answered_through_its_agent(
    hooks: hookd.testing.Hooks, agent: str
) -> None:
    data = stored("PreToolUse", tool_name="Bash", tool_input={"command": "rm -rf x"},
                  tool_use_id="toolu_1", a_field_newer_than_the_catalogue=1)  # fmt: skip
    assert answer(hooks, "PreToolUse", agent, data) == {
        "decision": "deny", "reason": "no recursive deletes", "hooks": ["guard"], "failure": None,
    }  # fmt: skip


@pytest.mark.req("R-L10")
def test_failures_context_and_refused_calls(hooks: hookd.testing.Hooks) -> None:
    write = stored("PreToolUse", tool_name="Write", tool_input={"file_path": "/x", "content": ""},
                   tool_use_id="toolu_2")  # fmt: skip
    assert answer(hooks, "PreToolUse", "claude", write) == {
        "decision": "deny",
        "reason": "hookd: hook crashes raised an exception: bug",
        "hooks": ["crashes"],
        "failure": "raised",
    }  # PreToolUse fails closed
    prompt = stored("UserPromptSubmit", prompt="hi")
    assert answer(hooks, "UserPromptSubmit", "claude", prompt)["decision"] == "context"
    notification = stored("Notification", message="waiting", notification_type="idle")
    refused = answer(hooks, "Notification", "codex", notification)
    assert refused["decision"] == "none" and refused["failure"] == "refused"
    assert "codex sends no event for Claude's Notification" in refused["reason"]
