"""Factory Droid's dialect (hookd/agents/droid.py): payloads recorded from the real ``droid``
(tests/agents/fixtures/droid/, @factory/cli 0.225.1) decoded into Claude's vocabulary, and
verdicts encoded into answers Droid obeys.

These tests call the dialect directly: decode a payload, run the call through a real kernel
with tests/hooks/agent_guard.py loaded, encode the verdict (the kit's ``fire(...,
agent="droid")`` through the registered dialect: test_kit_droid_cline.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import trio

from hookd.agents import Encoded, Unsupported
from hookd.agents.dialect import payload
from hookd.agents.droid import (
    APPROVAL_NEEDED,
    DEFAULT_REASON,
    DIALECT,
    SENT_BY_EVENT,
    claude_tool_input,
    droid_tool_input,
)
from hookd.engine.call import HookCall
from hookd.engine.verdict import Verdict
from hookd.testing import Hooks, load

ROOT = Path(__file__).resolve().parents[2]
GUARD = str(ROOT / "tests" / "hooks" / "agent_guard.py")
FIXTURES = Path(__file__).with_name("fixtures") / "droid"


def fixture(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text())
    return loaded


@pytest.fixture(scope="module")
def hooks() -> Hooks:
    return load(GUARD)


def answer(hooks: Hooks, body: dict[str, Any]) -> Encoded:
    """Droid's payload through the dialect and a real kernel, back as Droid's answer."""
    call = DIALECT.decode(body["hook_event_name"], body)
    assert isinstance(call, HookCall)
    verdict = trio.run(hooks.kernel.handle, call)
    assert verdict is not None
    encoded = DIALECT.encode(verdict, call)
    assert droid_problem(encoded) is None
    return encoded


# -- what Droid accepts (its output schema, read in the 0.225 bundle) ------------------------

_EVENTS = frozenset(SENT_BY_EVENT)
_TOP = {"continue", "stopReason", "suppressOutput", "systemMessage", "decision", "reason",
        "hookSpecificOutput"}  # fmt: skip
_SPECIFIC = {"hookEventName", "permissionDecision", "permissionDecisionReason",
             "additionalContext", "updatedInput"}  # fmt: skip


def droid_problem(encoded: Encoded) -> str | None:
    """What Droid would not read in the answer (None: every part of it is read)."""
    if encoded.exit_code not in (0, 1, 2):
        return f"exit {encoded.exit_code} (3 aborts Droid's whole run)"
    if encoded.exit_code != 0:
        if encoded.stdout or not encoded.stderr.strip():
            return "a non-zero exit carries its text on stderr and nothing on stdout"
        return None
    out = encoded.stdout_json
    if out is None:
        return None
    if not set(out) <= _TOP:
        return f"unknown keys {sorted(set(out) - _TOP)}"
    if out.get("decision") not in (None, "block", "approve"):
        return f"decision {out['decision']!r}"
    specific = out.get("hookSpecificOutput")
    if specific is None:
        return None
    if not set(specific) <= _SPECIFIC or specific.get("hookEventName") not in _EVENTS:
        return f"hookSpecificOutput {specific!r}"
    if specific.get("permissionDecision") not in (None, "allow", "deny", "ask"):
        return f"permissionDecision {specific['permissionDecision']!r}"
    return None


# -- decoding ------------------------------------------------------------------------------

DECODED = [
    ("pre_tool_use_execute", "PreToolUse", "Bash", "Execute"),
    ("post_tool_use_execute", "PostToolUse", "Bash", "Execute"),
    ("pre_tool_use_create", "PreToolUse", "Write", "Create"),
    ("pre_tool_use_edit", "PreToolUse", "Edit", "Edit"),
    ("post_tool_use_edit", "PostToolUse", "Edit", "Edit"),
    ("pre_tool_use_glob", "PreToolUse", "Glob", "Glob"),
    ("pre_tool_use_grep", "PreToolUse", "Grep", "Grep"),
    ("pre_tool_use_ls", "PreToolUse", "LS", "LS"),
    ("session_start", "SessionStart", None, None),
    ("session_end", "SessionEnd", None, None),
    ("stop", "Stop", None, None),
    ("user_prompt_submit", "UserPromptSubmit", None, None),
]


@pytest.mark.parametrize(("name", "event", "tool", "own_tool"), DECODED)
def test_each_recorded_payload_decodes_into_a_valid_claude_input(
    hooks: Hooks, name: str, event: str, tool: str | None, own_tool: str | None
) -> None:
    body = fixture(name)
    call = DIALECT.decode(body["hook_event_name"], body)
    assert isinstance(call, HookCall)
    assert (call.event, call.agent, call.agent_event, call.agent_tool) == (
        event, "droid", event, own_tool,
    )  # fmt: skip
    assert call.input.get("tool_name") == tool
    assert call.tool_use_id is None  # Droid sends none
    assert hooks.kernel.input_check.check(event, call.input) is None
    if own_tool is not None:  # no argument lost: back in Droid's names, the same arguments
        assert droid_tool_input(own_tool, call.input["tool_input"]) == body["tool_input"]


def test_the_shell_tool_arguments_in_claudes_names() -> None:
    call = DIALECT.decode("PreToolUse", fixture("pre_tool_use_execute"))
    assert isinstance(call, HookCall)
    assert call.input["tool_input"] == {
        "command": "echo hi > hello.txt",
        "description": "Run the requested command",  # Droid's summary
        "riskLevel": "medium",
        "riskLevelReason": "The command was asked for by the test (medium risk).",
    }
    # Droid's timeout is in seconds, Claude's in milliseconds; fireAndForget is background
    args = {"command": "make", "summary": "Build it all now", "timeout": 90,
            "fireAndForget": True}  # fmt: skip
    claude = claude_tool_input("Execute", args)
    assert claude == {"command": "make", "description": "Build it all now", "timeout": 90000,
                      "run_in_background": True}  # fmt: skip
    assert droid_tool_input("Execute", claude) == args
    assert droid_tool_input("Execute", {"command": "x", "timeout": 1500})["timeout"] == 1.5


def test_the_other_tools_arguments_in_claudes_names() -> None:
    edit = claude_tool_input("Edit", fixture("pre_tool_use_edit")["tool_input"])
    assert edit == {"file_path": "/tmp/droid-fixture/project/notes.txt", "old_string": "one",
                    "new_string": "two"}  # fmt: skip
    grep = claude_tool_input("Grep", fixture("pre_tool_use_grep")["tool_input"])
    assert grep == {"pattern": "two", "glob": "*.txt", "-i": True}
    ls = claude_tool_input("LS", fixture("pre_tool_use_ls")["tool_input"])
    assert ls == {"path": "/tmp/droid-fixture/project"}
    glob = claude_tool_input("Glob", {"patterns": ["*.py", "*.md"], "folder": "/w"})
    assert glob == {"patterns": ["*.py", "*.md"], "path": "/w", "pattern": "{*.py,*.md}"}
    # a hook that rewrites Claude's one pattern: Droid gets it as its one pattern
    assert droid_tool_input("Glob", {**glob, "pattern": "*.rs"}) == {
        "patterns": ["*.rs"], "folder": "/w",
    }  # fmt: skip
    assert claude_tool_input("Create", {"file_path": "/a", "content": "x"}) == {
        "file_path": "/a", "content": "x",
    }  # fmt: skip


def test_subagent_stop_names_the_task() -> None:
    body = {"session_id": "s", "transcript_path": "/t", "cwd": "/w", "permission_mode": "auto-high",
            "hook_event_name": "SubagentStop", "task_name": "worker", "task_result": "done",
            "stop_hook_active": False}  # fmt: skip
    call = DIALECT.decode("SubagentStop", body)
    assert isinstance(call, HookCall)
    assert call.input["agent_type"] == "worker"
    assert call.input["last_assistant_message"] == "done"
    assert call.input["agent_id"] == ""  # required by Claude's input, filled


@pytest.mark.parametrize("own_event", ["PermissionRequest", "PostToolUseFailure", "Setup"])
def test_an_event_droid_has_not_is_unsupported(own_event: str) -> None:
    got = DIALECT.decode(own_event, {})
    assert isinstance(got, Unsupported)
    assert own_event in got.reason and "\n" not in got.reason


def test_the_kit_builds_droids_own_payload() -> None:
    shell_input = {"command": "ls", "description": "List the files"}
    claude = {"session_id": "s", "transcript_path": "/t", "cwd": "/w", "tool_use_id": "toolu_1",
              "tool_name": "Bash", "tool_input": shell_input}  # fmt: skip
    built = payload(DIALECT, "PreToolUse", claude)
    assert built == {"session_id": "s", "transcript_path": "/t", "cwd": "/w",
                     "permission_mode": "auto-high", "hook_event_name": "PreToolUse",
                     "tool_name": "Execute",
                     "tool_input": {"command": "ls", "summary": "List the files"}}  # fmt: skip
    assert set(built) == set(fixture("pre_tool_use_execute"))
    post = payload(DIALECT, "PostToolUse", {**claude, "tool_response": {"stdout": "a\n",
                                                                       "stderr": ""}})  # fmt: skip
    assert post["tool_response"] == "a\n"


# -- encoding ------------------------------------------------------------------------------

DENY = "no recursive deletes"
CRASH = "hookd: hook guard raised an exception: the guard crashed"


def pre(**specific: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", **specific}}


def shell(command: str) -> dict[str, Any]:
    body = fixture("pre_tool_use_execute")
    return {**body, "tool_input": {**body["tool_input"], "command": command}}


def refused(reason: str) -> Encoded:
    """A deny as Droid gets it: exit 2, the reason on stderr (it outranks other hooks' allow)."""
    return Encoded(exit_code=2, stderr=reason)


def said(output: dict[str, Any]) -> Encoded:
    return Encoded(json.dumps(output, separators=(",", ":")).encode())


#: command -> Droid's answer.
ENCODED: dict[str, Encoded] = {
    "rm -rf x": refused(DENY),
    "sudo ls": refused(f"{APPROVAL_NEEDED}: sudo needs a human"),
    "python x.py": said(pre(permissionDecision="allow", updatedInput={
        **fixture("pre_tool_use_execute")["tool_input"], "command": "python3 x.py"})),
    "ls -l": said(pre(permissionDecision="allow", permissionDecisionReason="listing is fine")),
    "git push": Encoded(),  # Droid reads no additionalContext before a tool runs
    "halt": said({"continue": False, "stopReason": "halted by the guard"}),
    "crash": refused(CRASH),
    "oops": Encoded(),  # the note waits for an answer Droid shows (PostToolUse, Stop)
    "pwd": Encoded(),
}  # fmt: skip


@pytest.mark.parametrize("command", list(ENCODED))
def test_each_guard_answer_as_droid_obeys_it(hooks: Hooks, command: str) -> None:
    assert answer(hooks, shell(command)) == ENCODED[command]


def test_a_rewrite_is_in_droids_argument_names(hooks: Hooks) -> None:
    out = answer(hooks, shell("python x.py")).stdout_json
    assert out is not None
    updated = out["hookSpecificOutput"]["updatedInput"]
    assert updated["summary"] == "Run the requested command"  # Claude's description, back
    assert "description" not in updated


def test_stop_and_prompt_answers(hooks: Hooks) -> None:
    stop = answer(hooks, fixture("stop"))
    assert stop.stdout_json == {"decision": "block", "reason": "not done yet: run the tests"}
    prompt = answer(hooks, fixture("user_prompt_submit"))
    context = {"hookEventName": "UserPromptSubmit", "additionalContext": "run the tests first"}
    assert prompt.stdout_json == {"hookSpecificOutput": context}
    # Droid ignores decision: block on a prompt; exit 2 is what it obeys
    refused = answer(hooks, {**fixture("user_prompt_submit"), "prompt": "my secret is x"})
    assert (refused.exit_code, refused.stdout) == (2, b"")
    assert refused.stderr == "prompts with secrets are refused"


def verdict_answer(event: str, output: dict[str, Any], tool: str | None = None) -> Encoded:
    call = HookCall(event, {"tool_name": tool} if tool else {}, agent="droid", agent_tool=tool)
    encoded = DIALECT.encode(Verdict(event, output=output), call)
    assert droid_problem(encoded) is None
    return encoded


def test_answers_droid_reads_only_on_some_events() -> None:
    context = {"hookSpecificOutput": {"hookEventName": "PostToolUse",
                                      "additionalContext": "check the output"},
               "systemMessage": "seen by the user"}  # fmt: skip
    assert verdict_answer("PostToolUse", context, "Execute").stdout_json == context
    # a PostToolUse block is fed to the model by Droid only as exit 2's stderr
    blocked = verdict_answer("PostToolUse", {"decision": "block", "reason": "tests failed"})
    assert (blocked.exit_code, blocked.stderr) == (2, "tests failed")
    start = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "hi"},
             "systemMessage": "not shown by Droid"}  # fmt: skip
    assert verdict_answer("SessionStart", start).stdout_json == {
        "hookSpecificOutput": start["hookSpecificOutput"]
    }
    assert verdict_answer("PreCompact", {"decision": "block"}) == Encoded(
        exit_code=2, stderr=DEFAULT_REASON
    )
    assert verdict_answer("Stop", {"continue": False}).stdout_json == {"continue": False}
    assert verdict_answer("PreToolUse", {"systemMessage": "only logged"}).stdout == b""
    # updatedInput without a decision: merged, Droid's own autonomy check still applies
    rewritten = verdict_answer(
        "PreToolUse",
        pre(updatedInput={"command": "ls", "description": "List the files now"}),
        "Execute",
    )
    assert rewritten.stdout_json == pre(
        updatedInput={"command": "ls", "summary": "List the files now"}
    )
    # a call that names only Claude's tool: the rewrite still in Droid's names
    by_claude_name = HookCall("PreToolUse", {"tool_name": "Bash"}, agent="droid")
    only_claude = DIALECT.encode(
        Verdict("PreToolUse", output=pre(updatedInput={"description": "Say it"})), by_claude_name
    )
    assert only_claude.stdout_json == pre(updatedInput={"summary": "Say it"})
    # a block (Claude's legacy PreToolUse answer) is a deny, which Droid reads
    legacy = verdict_answer("PreToolUse", {"decision": "block", "reason": "no"}, "Execute")
    assert legacy == refused("no")
    assert verdict_answer("PreToolUse", pre(permissionDecision="deny")) == refused(DEFAULT_REASON)
    assert verdict_answer("PreToolUse", pre(permissionDecision="defer")).stdout == b""


# -- when hookd cannot answer --------------------------------------------------------------


def test_a_call_hookd_cannot_run_is_exit_2_on_blocking_events() -> None:
    from hookd.engine.kernel import Kernel

    kernel = Kernel(lambda: None)  # no hooks loaded
    for name, code in (("pre_tool_use_execute", 2), ("user_prompt_submit", 2),
                       ("post_tool_use_execute", 1), ("stop", 1)):  # fmt: skip
        body = fixture(name)
        call = DIALECT.decode(body["hook_event_name"], body)
        assert isinstance(call, HookCall)
        verdict = trio.run(kernel.handle, call)
        assert verdict is not None
        encoded = DIALECT.encode(verdict, call)
        assert (encoded.exit_code, encoded.stdout) == (code, b""), name
        assert "no hooks loaded" in encoded.stderr and "\n" not in encoded.stderr
        if code == 2:
            assert encoded.stderr.startswith("hookd could not check this Droid call: ")


def test_a_tool_call_without_its_tool_fails_closed(hooks: Hooks) -> None:
    call = DIALECT.decode("PreToolUse", {"session_id": "s", "cwd": "/w"})
    assert isinstance(call, HookCall)
    verdict = trio.run(hooks.kernel.handle, call)
    assert verdict is not None and verdict.problem is not None
    encoded = DIALECT.encode(verdict, call)
    assert encoded.exit_code == 2 and encoded.stdout == b""
    assert encoded.stderr.startswith("hookd could not check this Droid call: input.tool_name")
