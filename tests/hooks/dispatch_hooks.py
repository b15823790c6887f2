"""Hooks for the ``hooks/dispatch`` tests and conformance cases.

Ids follow registration order; the comments give them. Tool names pick the
behaviour under test (``Write``: two parallel rewrites, ``Seq``: a sequential
chain, ...).
"""

from __future__ import annotations

from typing import Any

import trio

from hookd import HookAbortError, HookContext, HookMatcher, add_context, allow, ask, block, deny

Input = dict[str, Any]


def _command(input_data: Input) -> str:
    return str(input_data.get("tool_input", {}).get("command", ""))


async def guard(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    if "rm -rf" in _command(input_data):
        return deny("rm -rf is not allowed")
    return allow("looks safe")


async def bash_context(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    return add_context(f"shell tool {input_data['tool_name']} ({tool_use_id})", event="PreToolUse")


async def mcp_ask(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    return ask("MCP tools need a human")


def _rewriter(path: str) -> Any:
    async def rewrite(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
        new_input = {**input_data["tool_input"], "file_path": path}
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "updatedInput": new_input,
            }
        }

    return rewrite


def _flag(flag: str) -> Any:
    async def add_flag(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
        new_input = {**input_data["tool_input"], "command": f"{_command(input_data)} {flag}"}
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": new_input}}

    return add_flag


def _noted(text: str, sleep_s: float = 0.0) -> Any:
    async def note(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
        await trio.sleep(sleep_s)
        return {"systemMessage": text}

    return note


async def raises(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    raise RuntimeError("hook broke")


async def abort(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    raise HookAbortError("policy violation")


def _session(text: str) -> Any:
    async def start(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
        return add_context(text, event="SessionStart")

    return start


async def stop_gate(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    if input_data.get("stop_hook_active"):
        return None
    return block("run the tests first")


hooks = {
    "PreToolUse": [
        HookMatcher(matcher="Bash", hooks=[guard]),  # hook_1
        HookMatcher(matcher="Bash|Edit", hooks=[bash_context]),  # hook_2
        HookMatcher(matcher="mcp__.*", hooks=[mcp_ask]),  # hook_3
        HookMatcher(matcher="Write", hooks=[_rewriter("/a.txt"), _rewriter("/b.txt")]),  # 4, 5
        HookMatcher(matcher="Seq", hooks=[_flag("--one"), _flag("--two")], sequential=True),  # 6, 7
        HookMatcher(matcher="Order", hooks=[_noted("first", 0.2), _noted("second")]),  # 8, 9
        HookMatcher(matcher="Fail", hooks=[raises], on_failure="continue"),  # hook_10
        HookMatcher(matcher="Fail|Abort", hooks=[_noted("still here")]),  # hook_11
        HookMatcher(matcher="Abort", hooks=[abort]),  # hook_12
    ],
    "SessionStart": [
        HookMatcher(matcher="startup", hooks=[_session("fresh session")]),  # hook_13
        HookMatcher(matcher="resume|clear", hooks=[_session("welcome back")]),  # hook_14
    ],
    "PreCompact": [
        HookMatcher(matcher="manual", hooks=[_noted("manual compaction")]),  # hook_15
        HookMatcher(matcher="auto", hooks=[_noted("auto compaction")]),  # hook_16
    ],
    "Stop": [
        HookMatcher(hooks=[stop_gate, _noted("stop seen")]),  # hook_17, hook_18
    ],
}
