"""What a hooks module may declare: refused at load with one clear line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.console import answers, hookd, lines, module, one_line_error
from tests.peer import event_input, hook_request, pre_tool_use

TYPO_DICT = """
    from hookd import HookMatcher

    async def guard(input_data, tool_use_id, context):
        return None

    hooks = {"PreToolUze": [HookMatcher(matcher="Bash", hooks=[guard])]}
"""

TYPO_DECORATOR = """
    import hookd

    @hookd.hook("PreToolUze", matcher="Bash")
    async def guard(input_data, tool_use_id, context):
        return None
"""

BAD_REGEX = """
    from hookd import HookMatcher

    async def guard(input_data, tool_use_id, context):
        return None

    hooks = {"PreToolUse": [HookMatcher(matcher="Edit[", hooks=[guard])]}
"""


def _refused(command: str, hooks: str) -> str:
    if command == "run":  # refused before any CLI is started: `false` would exit 1 otherwise
        proc = hookd("run", "--hooks", hooks, "-p", "hi", "--", "/nonexistent/cli")
    else:
        proc = hookd(command, hooks)
    assert proc.stdout == ""
    return one_line_error(proc, command)


@pytest.mark.parametrize("source", [TYPO_DICT, TYPO_DECORATOR], ids=["dict", "decorator"])
@pytest.mark.parametrize("command", ["check", "serve", "run"])
@pytest.mark.req("R-103")
def test_a_misspelled_event_is_refused_with_the_right_name(
    tmp_path: Path, command: str, source: str
) -> None:
    line = _refused(command, module(tmp_path / "hooks.py", source))
    assert "unknown event 'PreToolUze' (did you mean 'PreToolUse'?)" in line
    assert "hookd.custom_event('PreToolUze')" in line


def test_an_event_spelled_out_as_custom_is_served(tmp_path: Path) -> None:
    hooks = module(
        tmp_path / "hooks.py",
        """
        import hookd

        @hookd.hook(hookd.custom_event("BrandNewEvent"))
        async def note(input_data, tool_use_id, context):
            return {"systemMessage": "seen " + input_data["hook_event_name"]}
        """,
    )
    check = hookd("check", hooks)
    assert check.returncode == 0, check.stderr
    assert "BrandNewEvent" in check.stdout
    served = hookd(
        "serve", hooks, stdin=lines(hook_request("r1", "hook_1", event_input("BrandNewEvent")))
    )
    assert answers(served.stdout)["r1"]["response"] == {"systemMessage": "seen BrandNewEvent"}


@pytest.mark.parametrize("command", ["check", "serve", "run"])
@pytest.mark.req("R-103", "R-402")
def test_an_invalid_regex_matcher_is_refused_naming_it(tmp_path: Path, command: str) -> None:
    line = _refused(command, module(tmp_path / "hooks.py", BAD_REGEX))
    assert "hooks['PreToolUse'][0]: matcher 'Edit[' is not a valid regular expression" in line
    assert "unterminated character set" in line


PERMISSION = """
    import hookd

    @hookd.hook("PermissionRequest", matcher="Bash")
    async def allow_bash(input_data, tool_use_id, context):
        return hookd.allow("fine", event="PermissionRequest")

    @hookd.hook("PermissionRequest", matcher="Write")
    async def ask_write(input_data, tool_use_id, context):
        return hookd.ask("check the path", event="PermissionRequest")

    @hookd.hook("PermissionRequest", matcher="Edit")
    async def deny_edit(input_data, tool_use_id, context):
        return hookd.deny("read-only", event="PermissionRequest")
"""


def test_permission_request_helpers_build_the_events_own_shape(tmp_path: Path) -> None:
    hooks = module(tmp_path / "hooks.py", PERMISSION)

    def request(rid: str, callback_id: str, tool: str) -> dict[str, object]:
        body = pre_tool_use(tool, hook_event_name="PermissionRequest")
        return hook_request(rid, callback_id, body)

    stdin = lines(
        request("allow", "hook_1", "Bash"),
        request("ask", "hook_2", "Write"),
        request("deny", "hook_3", "Edit"),
    )
    got = answers(hookd("serve", hooks, stdin=stdin).stdout)
    specific = "hookSpecificOutput"
    assert got["allow"]["response"][specific]["decision"] == {"behavior": "allow"}
    assert got["ask"]["response"] == {"systemMessage": "check the path"}  # no decision: prompt
    assert got["deny"]["response"][specific]["decision"] == {
        "behavior": "deny",
        "message": "read-only",
    }


def test_a_permission_decision_on_an_event_that_takes_none_is_a_clear_failure(
    tmp_path: Path,
) -> None:
    hooks = module(
        tmp_path / "hooks.py",
        """
        import hookd

        @hookd.hook("Stop")
        async def stop(input_data, tool_use_id, context):
            return hookd.deny("not yet", event="Stop")
        """,
    )
    stdin = lines(hook_request("r1", "hook_1", event_input("Stop", stop_hook_active=False)))
    proc = hookd("serve", hooks, stdin=stdin)
    assert answers(proc.stdout)["r1"]["subtype"] == "error"
    assert "deny() builds a permission decision, which Stop does not take" in proc.stderr
    assert "use block(reason)" in proc.stderr
