"""The testing kit speaks Droid's and Cline's dialects once they are registered:
``fire_sync(..., agent="droid"|"cline")`` builds the agent's own payload from Claude's fields,
runs the module, and gives back what the agent would receive."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.agents import AGENTS
from hookd.testing import Hooks, load

GUARD = Path(__file__).resolve().parents[2] / "conformance" / "hooks" / "agents_guard.py"
REASON = "hookd-guard: rm -rf is not allowed here"


@pytest.fixture(scope="module")
def hooks() -> Hooks:
    return load(str(GUARD))


def test_both_are_registered() -> None:
    assert {"droid", "cline"} <= set(AGENTS)


@pytest.mark.req("R-A06", "R-A63")
def test_droid_gets_its_own_payload_and_a_deny_it_obeys(hooks: Hooks) -> None:
    denied = hooks.fire_sync(
        "PreToolUse", agent="droid", tool_name="Bash", tool_input={"command": "rm -rf x"}
    )
    assert denied.decision == "deny" and denied.reason == f"{REASON} (asked by droid)"
    assert denied.payload is not None and denied.encoded is not None
    assert denied.payload["tool_name"] == "Execute" and "tool_use_id" not in denied.payload
    assert (denied.encoded.exit_code, denied.encoded.stdout) == (2, b"")
    assert denied.encoded.stderr == f"{REASON} (asked by droid)"
    allowed = hooks.fire_sync(
        "PreToolUse", agent="droid", tool_name="Bash", tool_input={"command": "ls"}
    )
    assert allowed.encoded is not None
    assert (allowed.decision, allowed.encoded.exit_code, allowed.encoded.stdout) == (
        "none", 0, b"",
    )  # fmt: skip


@pytest.mark.req("R-A06", "R-A71")
def test_cline_gets_its_own_payload_and_a_deny_that_replaces_the_call(hooks: Hooks) -> None:
    denied = hooks.fire_sync(
        "PreToolUse", agent="cline", tool_name="Bash", tool_input={"command": "rm -rf x"}
    )
    assert denied.decision == "deny" and denied.reason == f"{REASON} (asked by cline)"
    assert denied.payload is not None and denied.encoded is not None
    assert denied.payload["hookName"] == "tool_call"
    assert denied.payload["tool_call"]["name"] == "run_commands"
    answer = denied.encoded.stdout_json
    assert answer is not None and denied.encoded.exit_code == 0
    (command,) = answer["overrideInput"]["commands"]
    assert f"hookd denied this command: {REASON} (asked by cline)" in command
    prompt = hooks.fire_sync("UserPromptSubmit", agent="cline", prompt="hello there")
    assert prompt.context == "hookd-guard is watching this session"
    assert prompt.encoded is not None and prompt.encoded.stdout == b""  # Cline reads none
