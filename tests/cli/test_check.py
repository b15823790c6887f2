"""``hookd check``, ``validate`` and the help texts, from the console script."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.console import HOOKD, answers, hookd, lines, module, one_line_error
from tests.peer import hook_request, pre_tool_use

HELPER = """
    import asyncio

    async def fetch_policy(command):
        await asyncio.sleep(0)
        return "deny" if "rm" in command else None

    async def unclear():
        return None
"""

HOOKS = """
    import hookd
    from hookd import HookMatcher, deny
    from helpers import fetch_policy, unclear

    async def guard(input_data, tool_use_id, context):
        if await fetch_policy(input_data["tool_input"]["command"]) == "deny":
            return deny("policy says no")
        return None

    async def plain_async(input_data, tool_use_id, context):
        await unclear()
        return None

    def sync_hook(input_data, tool_use_id, context):
        return None

    hooks = {
        "PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard], timeout=5)],
        "Stop": [HookMatcher(hooks=[plain_async, sync_hook])],
    }
"""


def _rows(stdout: str) -> dict[str, list[str]]:
    return {
        line.split()[0]: [cell.strip() for cell in line.split("  ") if cell.strip()]
        for line in stdout.splitlines()
        if line.startswith("hook_")
    }


def test_check_shows_where_each_hook_runs_and_why(tmp_path: Path) -> None:
    module(tmp_path / "helpers.py", HELPER)
    hooks = module(tmp_path / "hooks.py", HOOKS)
    proc = hookd("check", hooks)
    assert proc.returncode == 0, proc.stderr
    rows = _rows(proc.stdout)
    assert rows["hook_1"][5:] == [
        "asyncio",
        "awaits helpers.fetch_policy, which uses asyncio",
        "guard",
    ]
    assert (rows["hook_2"][5], rows["hook_2"][-1]) == ("trio", "plain_async")
    assert rows["hook_3"][5:] == ["thread", "plain def: a worker thread", "sync_hook"]
    # said at load, before any call, for the hook whose helper module imports asyncio
    assert proc.stderr.splitlines() == [
        "hookd check: warning: hook_2 (plain_async) runs on trio: it calls helpers.unclear, "
        'whose module imports asyncio: if it awaits asyncio code, mark it @hookd.runs_on("asyncio")'
        " so that it does not fail on trio"
    ]


def test_an_async_hook_awaiting_an_asyncio_helper_is_served(tmp_path: Path) -> None:
    """Detected as asyncio, the hook that awaits an asyncio helper answers instead of failing."""
    module(tmp_path / "helpers.py", HELPER)
    hooks = module(tmp_path / "hooks.py", HOOKS)
    request = hook_request("r1", "hook_1", pre_tool_use(tool_input={"command": "rm -rf x"}))
    proc = hookd("serve", hooks, stdin=lines(request))
    got = answers(proc.stdout)["r1"]
    assert got["response"]["hookSpecificOutput"]["permissionDecision"] == "deny", proc.stderr
    assert "policy says no" in got["response"]["hookSpecificOutput"]["permissionDecisionReason"]


def test_check_says_which_timeout_default_applies_to_which_kind(tmp_path: Path) -> None:
    hooks = module(tmp_path / "hooks.py", HOOKS.replace("from helpers import", "#"))
    settings = tmp_path / "settings.json"
    entry = {"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}
    timed = {"hooks": [{"type": "command", "command": "false", "timeout": 7}]}
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [entry, timed]}}))
    proc = hookd("check", hooks, "--settings", str(settings), "--timeout", "12")
    assert proc.returncode == 0, proc.stderr
    rows = _rows(proc.stdout)
    assert rows["hook_1"][3] == "5s"  # its own
    assert rows["hook_2"][3] == "12s (default)"  # --timeout, for Python callbacks
    assert rows["hook_4"][3] == "600s (command default)"  # Claude Code's, for commands
    assert rows["hook_5"][3] == "7s"  # the settings entry's own
    assert "(command default) is Claude Code's 600 s" in " ".join(
        hookd("check", "--help").stdout.split()
    )


def test_check_with_only_can_use_tool(tmp_path: Path) -> None:
    hooks = module(
        tmp_path / "perm.py",
        """
        def can_use_tool(tool_name, tool_input, context):
            return {"behavior": "allow", "updatedInput": tool_input}
        """,
    )
    proc = hookd("check", hooks)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "no hook callbacks"
    assert proc.stdout.splitlines()[1] == "can_use_tool: can_use_tool"
    assert "ID" not in proc.stdout


def test_check_a_directory(tmp_path: Path) -> None:
    line = one_line_error(hookd("check", str(tmp_path)), "check")
    assert line == f"hookd check: error: {tmp_path}: a directory, not a hooks file " + (
        "(give path/to/hooks.py)"
    )


def test_the_readme_example_outside_a_checkout_names_the_installed_one(tmp_path: Path) -> None:
    line = one_line_error(hookd("check", "examples/guard.py", cwd=tmp_path), "check")
    assert line.startswith("hookd check: error: examples/guard.py: no such file (the example ")
    installed = Path(line.split(" is ")[-1].rstrip(")"))
    assert installed.name == "guard.py"
    assert hookd("check", str(installed)).returncode == 0


@pytest.mark.parametrize("command", ["serve", "check", "run", "demo", "schema", "validate"])
def test_every_subcommand_help_has_a_description(command: str) -> None:
    proc = hookd(command, "--help")
    assert proc.returncode == 0
    usage, _, rest = proc.stdout.partition("\n\n")
    assert usage.startswith(f"usage: hookd {command}")
    description = rest.partition("\n\n")[0]
    assert not description.startswith(("positional arguments", "options")), proc.stdout
    assert len(description.split()) >= 10


def test_validate_checks_outputs_as_serve_sends_them() -> None:
    proc = hookd(
        "validate",
        "--event",
        "UserPromptSubmit",
        "-",
        stdin=lines({"hookSpecificOutput": {"additionalContext": "x"}}, {"continue_": False}),
    )
    assert proc.returncode == 0, proc.stdout
    assert proc.stdout == "<stdin>: checked 2: 2 valid\n"
    served = hookd("validate", "--event", "Stop", "-", stdin=lines({"continue_": "no"}))
    assert served.returncode == 1
    assert "Stop output: continue: expected boolean, got string" in served.stdout


def test_validate_refuses_an_unknown_event_with_a_suggestion() -> None:
    proc = hookd("validate", "--event", "Stopp", "-", stdin=lines({"decision": "block"}))
    assert proc.returncode == 2
    assert one_line_error(proc, "validate") == (
        "hookd validate: error: --event: unknown event 'Stopp' (did you mean 'Stop'?)"
    )
    assert proc.stdout == ""


def test_console_script_is_the_installed_one() -> None:
    assert Path(HOOKD).is_file()
