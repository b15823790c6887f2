"""One hooks module, in Claude Code's vocabulary, for every agent dialect's tests.

PreToolUse Bash (``guard``): denies ``rm -rf``, asks for ``sudo``, rewrites
``python`` to ``python3``, allows ``ls -l`` explicitly, adds context for
``git``, halts on ``halt``, raises on ``crash`` (on_failure="block") and on
``oops`` (through ``lenient``, on_failure="continue"); every call records where
it came from in ``context.state["seen"]``. UserPromptSubmit adds context; Stop
blocks once; PostToolUse asks nothing.
"""

from __future__ import annotations

from typing import Any

import hookd
from hookd import HookContext, add_context, allow, ask, block, deny, update_input


def _seen(context: HookContext) -> None:
    seen = context.state.setdefault("seen", [])
    seen.append((context.agent, context.event, context.agent_event, context.agent_tool))


@hookd.hook("PreToolUse", "Bash", on_failure="block")
async def guard(input_data: dict[str, Any], tool_use_id: str | None, context: HookContext) -> Any:
    _seen(context)
    command = str(input_data["tool_input"].get("command", ""))
    if "rm -rf" in command:
        return deny("no recursive deletes")
    if command.startswith("sudo "):
        return ask("sudo needs a human")
    if command.startswith("python "):
        return update_input({**input_data["tool_input"], "command": "python3 " + command[7:]})
    if command == "ls -l":
        return allow("listing is fine")
    if command.startswith("git "):
        return add_context("the main branch is protected")
    if command == "halt":
        return {"continue": False, "stopReason": "halted by the guard"}
    if command == "crash":
        raise RuntimeError("the guard crashed")
    return None


@hookd.hook("PreToolUse", "Bash", on_failure="continue")
async def lenient(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> Any:
    if input_data["tool_input"].get("command") == "oops":
        raise ValueError("the lenient hook crashed")
    return None


@hookd.hook("UserPromptSubmit")
async def rules(input_data: dict[str, Any], tool_use_id: str | None, context: HookContext) -> Any:
    _seen(context)
    if "secret" in str(input_data.get("prompt", "")):
        return block("prompts with secrets are refused")
    return add_context("run the tests first", event="UserPromptSubmit")


@hookd.hook("Stop")
async def not_done(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> Any:
    if input_data.get("stop_hook_active"):
        return None
    return block("not done yet: run the tests")


@hookd.hook("PostToolUse")
async def audit(input_data: dict[str, Any], tool_use_id: str | None, context: HookContext) -> Any:
    _seen(context)
    return None
