"""The ready guard's answers go through the decision log like any hook's: ``hookd log --why``
explains its deny, ``@hookd.shadow`` on it records would-be denials without touching the agent,
and ``hookd whatif`` replays the log through it. Through ``hookd up``'s daemon and the
console script."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.daemon.support import Box, hookd
from tests.daemon.test_decision_log import bash, call, records

GUARDED = """
from hookd import HookMatcher
from hookd.guards import destructive_commands

hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[destructive_commands()])]}
"""
SHADOWED = """
import hookd
from hookd import HookMatcher
from hookd.guards import destructive_commands

hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[hookd.shadow(destructive_commands())])]}
"""
OPEN = """
from hookd import HookMatcher


async def allow_all(input_data, tool_use_id, context):
    return None


hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[allow_all])]}
"""
#: Outside the temporary folders (the guard allows deleting in them; the tests' HOME is in one).
DISGUISED = "sudo env X=1 bash -c 'rm -r -f /srv/work'"


@pytest.fixture
def module(box: Box) -> Iterator[Path]:
    target = box.project / ".claude" / "hooks.py"
    target.parent.mkdir(parents=True, exist_ok=True)
    yield target
    hookd(box, "down")


def decision(answer: dict[str, Any]) -> tuple[str | None, str | None]:
    specific = answer.get("hookSpecificOutput") or {}
    return specific.get("permissionDecision"), specific.get("permissionDecisionReason")


@pytest.mark.req("R-G13")
def test_the_guards_deny_is_logged_and_explained(box: Box, module: Path) -> None:
    module.write_text(GUARDED)
    said, reason = decision(call(box, module, bash(DISGUISED)))
    assert said == "deny" and str(reason).startswith("rm-recursive: ")
    assert decision(call(box, module, bash("ls -la")))[0] is None
    logged = records(box, module, 2)
    assert [(r["decision"], r["reason"]) for r in logged] == [("deny", reason), ("none", "")]
    why = hookd(box, "log", str(module), "--why").stdout
    assert "rm-recursive" in why and "sudo" in why


@pytest.mark.req("R-G13")
def test_the_guard_in_shadow_records_what_it_would_deny(box: Box, module: Path) -> None:
    module.write_text(SHADOWED)
    assert call(box, module, bash(DISGUISED)) == {}  # the agent is not affected
    (shadow,) = records(box, module, 1, "--shadow")
    assert shadow["shadow"] and shadow["decision"] == "deny"
    assert str(shadow["reason"]).startswith("rm-recursive: ")


@pytest.mark.req("R-G13")
def test_whatif_replays_the_log_through_the_guard(box: Box, module: Path) -> None:
    module.write_text(OPEN)
    for command in (DISGUISED, "git status", "git reset --hard HEAD~3"):
        call(box, module, bash(command))
    records(box, module, 3)  # written
    candidate = box.project / "candidate.py"
    candidate.write_text(GUARDED)
    done = hookd(box, "whatif", str(candidate), str(module), "--json")
    assert done.returncode == 3, done.stderr  # decisions would change
    *changed, summary = [json.loads(line) for line in done.stdout.splitlines()]
    assert summary["replayed"] == 3 and summary["changes"] == {"none->deny": 2}
    text = json.dumps(changed)
    assert "rm-recursive" in text and "reset" in text and "git status" not in text
