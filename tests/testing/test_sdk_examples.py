"""SDK-shaped hook modules run unchanged: through `hookd check`, a real `hookd serve` and the kit.

``tests/hooks/sdk/`` holds modules in the shape of the Claude Agent SDK's
published hook and permission examples: configuration in a module-level
``ClaudeAgentOptions``, the SDK's own types and result objects, ``context``
read as a mapping, ``input()`` to ask the user.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import hookd.testing
from tests.cli.console import hookd as run_console
from tests.peer import Peer, hook_request, hookd_process, payload

SDK = Path(__file__).resolve().parent.parent / "hooks" / "sdk"
SESSION = str(SDK / "guarded_session.py")
PERMISSION = str(SDK / "permission_prompt.py")


@pytest.mark.req("R-710")
def test_hookd_check_lists_the_callbacks_of_the_options_object() -> None:
    done = run_console("check", SESSION)
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines()[1:]]
    assert [(r[0], r[1], r[2], r[-1]) for r in rows] == [
        ("hook_1", "PreToolUse", "Bash", "refuse_forbidden_commands"),
        ("hook_2", "SessionStart", "*", "greet_session"),
        ("hook_3", "PostToolUse", "Bash", "review_tool_output"),
        ("hook_4", "UserPromptSubmit", "*", "halt_on_secret"),
    ]
    permission = run_console("check", PERMISSION)
    assert permission.returncode == 0, permission.stderr
    assert permission.stdout.splitlines()[-1] == "can_use_tool: decide_tool_use"


@pytest.mark.req("R-710")
def test_the_kit_gets_the_answers_the_sdk_would_send() -> None:
    hooks = hookd.testing.load(SESSION)
    denied = hooks.fire_sync("PreToolUse", tool_input={"command": "./deploy.sh --prod"})
    assert (denied.decision, denied.reason) == ("deny", "'deploy.sh' is not allowed here")
    assert hooks.fire_sync("PreToolUse", tool_input={"command": "ls"}).output == {}
    started = hooks.fire_sync("SessionStart")
    assert started.context == "The user prefers short answers."
    failed = hooks.fire_sync("PostToolUse", tool_response={"stdout": "", "stderr": "Error: no"})
    assert failed.system_message == "The last command printed an error."
    assert failed.context == "Check the error before going on."
    secret = hooks.fire_sync("UserPromptSubmit", prompt="my SECRET is 42")
    assert secret.stopped and secret.stop_reason == "a secret was pasted"
    assert secret.output["suppressOutput"] is True


@pytest.mark.req("R-711")
def test_the_permission_callback_answers_as_the_sdk_would() -> None:
    hooks = hookd.testing.load(PERMISSION)
    assert hooks.ask_permission_sync("Read").allowed
    system = hooks.ask_permission_sync("Write", {"file_path": "/etc/passwd", "content": "x"})
    assert (system.behavior, system.message) == ("deny", "/etc/passwd is a system file")
    moved = hooks.ask_permission_sync("Write", {"file_path": "/home/me/a.txt", "content": "x"})
    assert moved.updated_input == {"file_path": "/tmp/sandbox/a.txt", "content": "x"}
    risky = hooks.ask_permission_sync("Bash", {"command": "sudo reboot"})
    assert risky.output == {"behavior": "deny", "message": "risky command: sudo"}
    plain = hooks.ask_permission_sync("Bash", {"command": "ls"})
    assert plain.output == {"behavior": "allow", "updatedInput": {"command": "ls"}}


def control(request_id: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"type": "control_request", "request_id": request_id, "request": body}


@pytest.mark.req("R-710", "R-711")
async def test_a_real_hookd_serve_answers_both_modules() -> None:
    inputs = hookd.testing.load(SESSION)
    forbidden = inputs.input("PreToolUse", tool_input={"command": "rm -rf / --no-preserve-root"})
    async with hookd_process("serve", SESSION) as (peer, _):
        await peer.send(control("i", {"subtype": "initialize"}))
        hooks_map = payload(await peer.recv())["hooks"]
        assert hooks_map["PreToolUse"][0]["hookCallbackIds"] == ["hook_1"]
        assert set(hooks_map) == {"PreToolUse", "SessionStart", "PostToolUse", "UserPromptSubmit"}
        await peer.send(hook_request("h", "hook_1", forbidden, forbidden["tool_use_id"]))
        specific = payload(await peer.recv())["hookSpecificOutput"]
        assert specific["permissionDecision"] == "deny"
        assert specific["permissionDecisionReason"] == "'rm -rf /' is not allowed here"
        await peer.close()
    async with hookd_process("serve", PERMISSION) as (peer, _):
        await ask(peer, "p1", "Edit", {"file_path": "/usr/lib/x"})
        assert payload(await peer.recv()) == {
            "behavior": "deny",
            "message": "/usr/lib/x is a system file",
        }
        await ask(peer, "p2", "Glob", {"pattern": "*.py"})
        assert payload(await peer.recv()) == {
            "behavior": "allow",
            "updatedInput": {"pattern": "*.py"},
        }
        await peer.close()


async def ask(peer: Peer, request_id: str, tool: str, tool_input: dict[str, Any]) -> None:
    body = {"subtype": "can_use_tool", "tool_name": tool, "input": tool_input}
    await peer.send(control(request_id, body))


#: One input per callback and branch of guarded_session.py: (callback id, event, fields).
SCENARIOS: list[tuple[str, str, dict[str, Any]]] = [
    ("hook_1", "PreToolUse", {"tool_input": {"command": "sh deploy.sh"}}),
    ("hook_1", "PreToolUse", {"tool_input": {"command": "ls"}}),
    ("hook_2", "SessionStart", {}),
    ("hook_3", "PostToolUse", {"tool_response": {"stdout": "", "stderr": "error: x"}}),
    ("hook_3", "PostToolUse", {}),
    ("hook_4", "UserPromptSubmit", {"prompt": "the SECRET is out"}),
    ("hook_4", "UserPromptSubmit", {"prompt": "hello"}),
]


def sdk_answer(callback_id: str, input_data: dict[str, Any]) -> dict[str, Any]:
    """What the SDK itself sends for this callback: its own call, its own output conversion."""
    import asyncio

    from claude_agent_sdk._internal.query import _convert_hook_output_for_cli

    hooks = hookd.testing.load(SESSION)
    reg = hooks.registry.get(callback_id)
    assert reg is not None
    context = {"signal": None}  # the SDK passes a plain dict
    output = asyncio.run(reg.callback(input_data, input_data.get("tool_use_id"), context))
    return _convert_hook_output_for_cli(output)


@pytest.mark.req("R-710")
async def test_every_callback_answers_as_the_sdk_would_through_serve_and_the_kit() -> None:
    hooks = hookd.testing.load(SESSION)
    inputs = [hooks.input(event, **fields) for _, event, fields in SCENARIOS]
    expected = [sdk_answer(cid, data) for (cid, _, _), data in zip(SCENARIOS, inputs, strict=True)]
    async with hookd_process("serve", SESSION) as (peer, _):
        for index, ((callback_id, _, _), data) in enumerate(zip(SCENARIOS, inputs, strict=True)):
            await peer.send(hook_request(str(index), callback_id, data, data.get("tool_use_id")))
        answers = await peer.recv_many(len(SCENARIOS))
        await peer.close()
    for index, (callback_id, event, fields) in enumerate(SCENARIOS):
        assert payload(answers[str(index)]) == expected[index], (callback_id, fields)
        fired = await hooks.fire(event, **fields)
        assert fired.hook(callback_id).output == expected[index], (callback_id, fields)
