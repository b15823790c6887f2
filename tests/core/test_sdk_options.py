"""SDK code unchanged: ClaudeAgentOptions picked up, the permission callback named, the
context read as the SDK's mapping."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from pathlib import Path

import pytest

from hookd.core.context import HookContext
from hookd.core.loader import load_hooks
from hookd.core.registry import RegistrationError
from tests.cli.console import hookd as run_console
from tests.peer import hookd_process, payload

CALLBACKS = """
    async def guard(input_data, tool_use_id, context):
        return {}

    async def ask_user(tool_name, input_data, context):
        return {"behavior": "deny", "message": "asked " + tool_name}

    def other_policy(tool_name, input_data, context):
        return {"behavior": "allow"}
"""


def module(tmp_path: Path, body: str, name: str = "mod.py") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(CALLBACKS) + textwrap.dedent(body))
    return str(path)


@pytest.mark.req("R-712")
def test_a_module_level_claude_agent_options_is_picked_up(tmp_path: Path) -> None:
    spec = module(
        tmp_path,
        """
        from claude_agent_sdk import ClaudeAgentOptions, HookMatcher
        options = ClaudeAgentOptions(
            hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard], timeout=7)]},
            can_use_tool=ask_user,
        )
        """,
    )
    registry = load_hooks(spec)
    (reg,) = registry.registrations()
    assert (reg.event, reg.matcher, reg.timeout_s, reg.name) == ("PreToolUse", "Bash", 7, "guard")
    assert registry.can_use_tool is not None
    assert registry.can_use_tool.__name__ == "ask_user"


@pytest.mark.req("R-712")
def test_any_object_shaped_like_the_options_is_read_without_the_sdk(tmp_path: Path) -> None:
    spec = module(
        tmp_path,
        """
        class Options:
            def __init__(self, hooks=None, can_use_tool=None):
                self.hooks, self.can_use_tool = hooks, can_use_tool

        class Matcher:
            matcher, timeout = None, None
            def __init__(self, hooks):
                self.hooks = hooks

        config = Options(hooks={"Stop": [Matcher([guard])]})
        """,
    )
    registry = load_hooks(spec)
    assert [r.event for r in registry.registrations()] == ["Stop"]
    assert registry.can_use_tool is None


@pytest.mark.req("R-712")
def test_a_hooks_dict_wins_over_options_holding_the_same_hooks(tmp_path: Path) -> None:
    spec = module(
        tmp_path,
        """
        from claude_agent_sdk import ClaudeAgentOptions, HookMatcher
        hooks = {"Stop": [HookMatcher(hooks=[guard])]}
        options = ClaudeAgentOptions(hooks=hooks)
        """,
    )
    assert [r.callback_id for r in load_hooks(spec).registrations()] == ["hook_1"]


@pytest.mark.req("R-712")
def test_two_options_objects_are_refused(tmp_path: Path) -> None:
    spec = module(
        tmp_path,
        """
        from claude_agent_sdk import ClaudeAgentOptions
        first = ClaudeAgentOptions(can_use_tool=ask_user)
        second = ClaudeAgentOptions(can_use_tool=other_policy)
        """,
    )
    with pytest.raises(RegistrationError, match=r"several ClaudeAgentOptions \(first, second\)"):
        load_hooks(spec)


@pytest.mark.req("R-713")
def test_the_permission_callback_can_be_named(tmp_path: Path) -> None:
    spec = module(tmp_path, "can_use_tool = ask_user\n")
    assert getattr(load_hooks(spec).can_use_tool, "__name__", None) == "ask_user"
    named = load_hooks(spec, can_use_tool="other_policy").can_use_tool
    assert getattr(named, "__name__", None) == "other_policy"
    with pytest.raises(RegistrationError, match=r"no 'other_polcy' .*did you mean 'other_policy'"):
        load_hooks(spec, can_use_tool="other_polcy")


@pytest.mark.req("R-713")
async def test_can_use_tool_option_of_check_and_serve(tmp_path: Path) -> None:
    spec = module(tmp_path, "")
    check = run_console("check", spec, "--can-use-tool", "ask_user")
    assert check.returncode == 0, check.stderr
    assert check.stdout.splitlines()[-1] == "can_use_tool: ask_user"
    missing = run_console("check", spec, "--can-use-tool", "nope")
    assert missing.returncode == 1
    assert "no 'nope' to use as can_use_tool" in missing.stderr
    async with hookd_process("serve", spec, "--can-use-tool", "ask_user") as (peer, _):
        body = {"subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": "ls"}}
        await peer.send({"type": "control_request", "request_id": "p", "request": body})
        assert payload(await peer.recv()) == {"behavior": "deny", "message": "asked Bash"}
        await peer.close()


@pytest.mark.req("R-714")
def test_the_context_reads_as_the_sdks_mapping_beside_its_attributes() -> None:
    ctx = HookContext(
        request_id="r", callback_id="hook_1", event="Stop", tool_use_id=None, timeout_s=5, state={}
    )
    assert ctx.get("signal") is None
    assert ctx["signal"] is None
    assert ctx.get("missing", "default") == "default"
    assert "signal" in ctx and "missing" not in ctx
    assert dict(ctx) == {"signal": None}
    assert isinstance(ctx, Mapping)
    with pytest.raises(KeyError):
        ctx["missing"]
    assert (ctx.callback_id, ctx.event, ctx.state) == ("hook_1", "Stop", {})


@pytest.mark.req("R-713")
def test_hookd_run_takes_the_option_and_records_it_for_replay() -> None:
    import argparse

    from hookd.cli.run import _serve_args, configure_run_parser

    parser = argparse.ArgumentParser()
    configure_run_parser(parser)
    args = parser.parse_args(["--hooks", "h.py", "--can-use-tool", "ask_user"])
    assert args.can_use_tool == "ask_user"
    assert _serve_args(args) == ("--can-use-tool", "ask_user")
    shown = run_console("run", "--help")
    assert "--can-use-tool NAME" in shown.stdout
