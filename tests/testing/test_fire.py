"""The kit fires events at a hooks module as ``hookd serve`` runs them; written with the kit."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import trio
import trio.testing

import hookd.testing
from hookd.testing import Hooks

GUARD = str(Path(__file__).resolve().parent.parent / "hooks" / "kit_guard.py")


@pytest.fixture
def hooks(hookd_hooks: Callable[..., Hooks]) -> Hooks:
    return hookd_hooks(GUARD)


@pytest.mark.req("R-701")
async def test_deny_reads_as_the_decision_with_the_hooks_own_reason(hooks: Hooks) -> None:
    result = await hooks.fire("PreToolUse", tool_name="Bash", tool_input={"command": "rm -rf /"})
    assert result.decision == "deny"
    assert result.reason == "recursive delete of /"
    assert result.ran == ["hook_2"]
    assert result.hook("guard").outcome == "ok"
    specific = result.output["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny"
    assert specific["permissionDecisionReason"] == "recursive delete of /"


@pytest.mark.req("R-701")
async def test_ask_allow_with_rewrite_and_no_objection(hooks: Hooks) -> None:
    asked = await hooks.fire("PreToolUse", tool_input={"command": "sudo reboot"})
    assert (asked.decision, asked.reason) == ("ask", "sudo needs a human")
    rewritten = await hooks.fire("PreToolUse", tool_input={"command": "python x.py"})
    assert rewritten.decision == "allow"
    assert rewritten.reason is None
    assert rewritten.updated_input == {"command": "python3 x.py"}
    quiet = await hooks.fire("PreToolUse", tool_input={"command": "ls"})
    assert (quiet.decision, quiet.output, quiet.updated_input) == ("none", {}, None)


@pytest.mark.req("R-701")
async def test_context_system_message_block_and_stop(hooks: Hooks) -> None:
    rules = await hooks.fire("UserPromptSubmit", prompt="add a feature")
    assert rules.context == "Run the tests first."
    assert rules.system_message == "rules added"
    assert not rules.stopped
    stop = await hooks.fire("Stop")
    assert stop.decision == "block"
    assert stop.reason is not None and stop.reason.startswith("not done yet")
    halted = await hooks.fire("UserPromptSubmit", prompt="halt")
    assert halted.stopped
    assert halted.stop_reason == "halted on request"
    assert halted.hook("rules").outcome == "aborted"


@pytest.mark.req("R-702")
async def test_a_raising_guard_reads_as_deny_with_its_traceback(hooks: Hooks) -> None:
    result = await hooks.fire("PreToolUse", tool_name="Edit")
    assert result.decision == "deny"
    assert result.reason == "hookd: hook broken raised an exception: the guard crashed"
    (failure,) = result.failures
    assert (failure.id, failure.outcome, failure.error) == (
        "hook_4",
        "blocked:exception",
        "the guard crashed",
    )
    assert failure.traceback is not None
    assert 'raise ValueError("the guard crashed")' in failure.traceback


@pytest.mark.req("R-702")
async def test_on_failure_continue_and_invalid_output_follow_production_policy(
    hooks: Hooks,
) -> None:
    lenient = await hooks.fire("PreToolUse", tool_name="Read")
    assert (lenient.decision, lenient.output) == ("none", {})
    assert lenient.hook("lenient").outcome == "exception"
    invalid = await hooks.fire("PreToolUse", tool_name="Glob")
    assert invalid.decision == "deny"
    assert "did you mean 'permissionDecision'" in str(invalid.reason)
    assert invalid.hook("hook_6").outcome == "blocked:invalid_output"


@pytest.mark.req("R-703")
async def test_timeouts_run_on_the_fake_clock(
    hooks: Hooks, autojump_clock: trio.testing.MockClock
) -> None:
    started = trio.current_time()
    result = await hooks.fire("PreToolUse", tool_name="Write")
    assert result.decision == "deny"
    assert result.reason == "hookd: hook slow timed out: no answer within 4.5s"
    assert trio.current_time() - started == pytest.approx(4.5)


@pytest.mark.req("R-703")
def test_fire_sync_takes_a_fake_clock(hooks: Hooks) -> None:
    clock = trio.testing.MockClock(autojump_threshold=0)
    result = hooks.fire_sync("PreToolUse", tool_name="Write", clock=clock)
    assert result.hook("slow").outcome == "blocked:timeout"
    assert clock.current_time() == pytest.approx(4.5)


@pytest.mark.req("R-703")
async def test_every_runner_runs_where_serve_runs_it(hooks: Hooks) -> None:
    on_asyncio = await hooks.fire("PostToolUse")
    assert on_asyncio.system_message == "asyncio loop running: True"
    in_thread = await hooks.fire("Stop")
    assert "MainThread" not in str(in_thread.reason)
    runners = {r.name: r.runner for r in hooks.registry.registrations()}
    assert (runners["guard"], runners["on_asyncio"], runners["in_thread"]) == (
        "trio",
        "asyncio",
        "thread",
    )


@pytest.mark.req("R-704")
async def test_state_is_per_session_observable_and_resettable(hooks: Hooks) -> None:
    await hooks.fire("PreToolUse", tool_input={"command": "ls"})
    await hooks.fire("PreToolUse", tool_input={"command": "pwd"})
    await hooks.fire("PreToolUse", tool_input={"command": "ls"}, session_id="other-session")
    assert hooks.state == {"guard_calls": 2}
    assert hooks.session_state("other-session") == {"guard_calls": 1}
    hooks.reset()
    assert hooks.state == {}
    await hooks.fire("PreToolUse", tool_input={"command": "ls"})
    assert hooks.state == {"guard_calls": 1}


@pytest.mark.req("R-704")
def test_each_load_starts_with_fresh_state() -> None:
    first = hookd.testing.load(GUARD)
    first.fire_sync("PreToolUse")
    assert first.state == {"guard_calls": 1}
    assert hookd.testing.load(GUARD).state == {}


@pytest.mark.req("R-705")
async def test_nothing_is_printed_by_hookd_while_hooks_fail(
    hooks: Hooks, capfd: pytest.CaptureFixture[str]
) -> None:
    await hooks.fire("PreToolUse", tool_name="Edit")
    await hooks.fire("PreToolUse", tool_name="Glob")
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")


def test_fire_sync_inside_a_trio_test_says_what_to_use(hooks: Hooks) -> None:
    async def inside() -> None:
        with pytest.raises(hookd.HookdError, match=r"await hooks\.fire"):
            hooks.fire_sync("PreToolUse")

    trio.run(inside)


def test_a_module_that_cannot_load_fails_like_hookd_check(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("hooks = {\n")
    with pytest.raises(hookd.HookdError, match=r"broken\.py:1: syntax error"):
        hookd.testing.load(str(broken))


def test_the_result_repr_shows_decision_output_and_hooks(hooks: Hooks) -> None:
    result = hooks.fire_sync("PreToolUse", tool_input={"command": "ls"})
    text = repr(result)
    assert text.startswith("FireResult(PreToolUse: decision='none'")
    assert "<hook_2 guard: ok, output={}>" in text


def test_a_dotted_module_name_loads_too() -> None:
    hooks = hookd.testing.load("tests.hooks.kit_guard")
    assert hooks.fire_sync("PreToolUse", tool_input={"command": "rm -rf /"}).decision == "deny"


@pytest.mark.req("R-706")
def test_a_field_named_event_is_a_field(hooks: Hooks) -> None:
    assert hooks.input("FileChanged", event="unlink")["event"] == "unlink"
    assert hooks.fire_sync("FileChanged", event="add").input["event"] == "add"
