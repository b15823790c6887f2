"""Each agent's dialect: its payloads decoded into Claude's vocabulary, verdicts encoded back
into the smallest answer that agent accepts; fired through the testing kit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import trio
from jsonschema import Draft202012Validator

from hookd import agents
from hookd.agents import Encoded, Unsupported
from hookd.engine.call import HookCall
from hookd.engine.kernel import Kernel as Handler
from hookd.errors import HookdError
from hookd.testing import Hooks, load

ROOT = Path(__file__).resolve().parents[2]
GUARD = str(ROOT / "tests" / "hooks" / "agent_guard.py")
CODEX_SCHEMAS = ROOT / "schemas" / "agents" / "codex"
OTHERS = ("claude", "codex", "gemini", "copilot", "qwen")


@pytest.fixture
def hooks() -> Hooks:
    return load(GUARD)


# -- decoding: the agent's names and fields into Claude's --------------------------------

DECODED = [
    ("codex", "PreToolUse", {"tool_name": "Bash", "tool_input": {}, "turn_id": "t",
                             "transcript_path": None},
     "PreToolUse", "Bash"),
    ("gemini", "BeforeTool", {"tool_name": "run_shell_command", "tool_input": {}},
     "PreToolUse", "Bash"),
    ("gemini", "AfterTool", {"tool_name": "write_file", "tool_input": {},
                             "tool_response": {"llmContent": "ok"}},
     "PostToolUse", "Write"),
    ("gemini", "BeforeAgent", {"prompt": "hi"}, "UserPromptSubmit", None),
    ("gemini", "AfterAgent", {"prompt_response": "done"}, "Stop", None),
    ("gemini", "PreCompress", {"trigger": "auto"}, "PreCompact", None),
    ("copilot", "preToolUse", {"sessionId": "s", "toolName": "bash", "toolArgs": "{}"},
     "PreToolUse", "Bash"),
    ("copilot", "PreToolUse", {"session_id": "s", "tool_name": "Bash", "tool_input": {}},
     "PreToolUse", "Bash"),
    ("copilot", "postToolUse", {"toolName": "create", "toolArgs": {},
                                "toolResult": {"resultType": "success"}},
     "PostToolUse", "Write"),
    ("copilot", "userPromptSubmitted", {"prompt": "hi"}, "UserPromptSubmit", None),
    ("copilot", "agentStop", {}, "Stop", None),
    ("qwen", "PreToolUse", {"tool_name": "run_shell_command", "tool_input": {}, "agent_id": "a"},
     "PreToolUse", "Bash"),
]  # fmt: skip


@pytest.mark.req("R-A01")
@pytest.mark.parametrize(("agent", "own_event", "body", "event", "tool"), DECODED)
def test_decode_maps_events_tools_and_fields(
    agent: str, own_event: str, body: dict[str, Any], event: str, tool: str | None
) -> None:
    call = agents.dialect(agent).decode(own_event, {"cwd": "/w", **body})
    assert isinstance(call, HookCall)
    assert (call.event, call.agent, call.agent_event) == (event, agent, own_event)
    assert call.input["hook_event_name"] == event
    assert call.input.get("tool_name") == tool
    assert call.agent_tool == body.get("tool_name", body.get("toolName"))
    assert Handler(lambda: None).input_check.check(event, call.input) is None  # valid for Claude


@pytest.mark.req("R-A01")
def test_decode_renames_fields_and_parses_copilot_tool_args() -> None:
    copilot = agents.dialect("copilot").decode(
        "preToolUse", {"sessionId": "s1", "toolName": "bash", "toolArgs": '{"command": "ls"}'}
    )
    assert isinstance(copilot, HookCall)
    assert copilot.input["session_id"] == "s1"
    assert copilot.input["tool_input"] == {"command": "ls"}
    assert "toolArgs" not in copilot.input
    gemini = agents.dialect("gemini").decode("AfterAgent", {"prompt_response": "all done"})
    assert isinstance(gemini, HookCall)
    assert gemini.input["last_assistant_message"] == "all done"
    assert gemini.input["stop_hook_active"] is False  # a required Claude field, filled


@pytest.mark.req("R-A01")
@pytest.mark.parametrize(
    ("agent", "own_event"),
    [("gemini", "BeforeModel"), ("codex", "Interrupt"), ("copilot", "errorOccurred")],
)
def test_an_event_without_counterpart_is_unsupported(agent: str, own_event: str) -> None:
    got = agents.dialect(agent).decode(own_event, {})
    assert isinstance(got, Unsupported)
    assert own_event in got.reason and "\n" not in got.reason


def test_an_unknown_agent_is_one_line() -> None:
    with pytest.raises(ValueError, match="unknown agent 'cursor': expected one of claude, codex"):
        agents.dialect("cursor")


@pytest.mark.req("R-A02")
@pytest.mark.parametrize(
    ("agent", "own_event", "own_tool"),
    [("claude", None, None), ("codex", "PreToolUse", "Bash"), ("gemini", "BeforeTool",
     "run_shell_command"), ("copilot", "preToolUse", "bash"), ("qwen", "PreToolUse",
     "run_shell_command")],
)  # fmt: skip
async def test_the_hook_is_told_the_agent_and_its_own_names(
    hooks: Hooks, agent: str, own_event: str | None, own_tool: str | None
) -> None:
    event = own_event or "PreToolUse"
    await hooks.fire(event, agent=agent, tool_name="Bash", tool_input={"command": "pwd"})
    assert hooks.state["seen"] == [(agent, "PreToolUse", own_event, own_tool)]


# -- encoding: one answer meaning, each agent's accepted answer --------------------------

DENY = "no recursive deletes"
ASK = "sudo needs a human"
CRASH = "hookd: hook guard raised an exception: the guard crashed"
OOPS = "hookd: hook lenient raised an exception: the lenient hook crashed"
APPROVAL = "this call needs the user's approval, which a Codex hook cannot ask for"
REWRITTEN = {"command": "python3 x.py"}
CONTEXT = "the main branch is protected"
LISTING = "listing is fine"
DENIED = "denied by a hookd hook"


def claude_pre(**specific: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", **specific}}


def claude_deny(reason: str) -> dict[str, Any]:
    return claude_pre(permissionDecision="deny", permissionDecisionReason=reason)


def copilot_deny(reason: str) -> dict[str, Any]:
    return {"permissionDecision": "deny", "permissionDecisionReason": reason}


#: command -> the agent's stdout as JSON (None: nothing printed); exit 0 throughout.
ENCODED: dict[str, dict[str, dict[str, Any] | None]] = {
    "rm -rf x": {
        "claude": claude_pre(permissionDecision="deny", permissionDecisionReason=DENY),
        "codex": claude_pre(permissionDecision="deny", permissionDecisionReason=DENY),
        "gemini": {"decision": "deny", "reason": DENY},
        "copilot": copilot_deny(DENY),
        "qwen": claude_pre(permissionDecision="deny", permissionDecisionReason=DENY),
    },
    "sudo ls": {
        "claude": claude_pre(permissionDecision="ask", permissionDecisionReason=ASK),
        "codex": claude_deny(f"{APPROVAL}: {ASK}"),
        "gemini": {"decision": "ask", "reason": ASK},
        "copilot": {"permissionDecision": "ask", "permissionDecisionReason": ASK},
        "qwen": claude_pre(permissionDecision="ask", permissionDecisionReason=ASK),
    },
    "python x.py": {
        "claude": claude_pre(permissionDecision="allow", updatedInput=REWRITTEN),
        "codex": claude_pre(permissionDecision="allow", updatedInput=REWRITTEN),
        "gemini": {"decision": "allow", "hookSpecificOutput": {"tool_input": REWRITTEN}},
        "copilot": {"permissionDecision": "allow", "permissionDecisionReason":
                    "allowed by a hookd hook", "modifiedArgs": REWRITTEN},
        "qwen": claude_pre(permissionDecision="allow", updatedInput=REWRITTEN),
    },
    "ls -l": {
        "claude": claude_pre(permissionDecision="allow", permissionDecisionReason=LISTING),
        "codex": None,  # a bare allow is invalid in Codex: no objection is the same call
        "gemini": {"decision": "allow", "reason": "listing is fine"},
        "copilot": {"permissionDecision": "allow", "permissionDecisionReason": "listing is fine"},
        "qwen": claude_pre(permissionDecision="allow", permissionDecisionReason=LISTING),
    },
    "git push": {
        "claude": claude_pre(additionalContext=CONTEXT),
        "codex": claude_pre(additionalContext=CONTEXT),
        "gemini": {"hookSpecificOutput": {"additionalContext": CONTEXT}},
        "copilot": None,  # Copilot takes additionalContext on notification/subagentStart only
        "qwen": claude_pre(additionalContext=CONTEXT),
    },
    "halt": {
        "claude": {"continue": False, "stopReason": "halted by the guard"},
        "codex": claude_deny("halted by the guard"),
        "gemini": {"continue": False, "stopReason": "halted by the guard"},
        "copilot": copilot_deny("halted by the guard"),
        "qwen": {"continue": False, "stopReason": "halted by the guard"},
    },
    "crash": {  # on_failure="block": the failing hook's answer is a deny
        "claude": claude_pre(permissionDecision="deny", permissionDecisionReason=CRASH),
        "codex": claude_pre(permissionDecision="deny", permissionDecisionReason=CRASH),
        "gemini": {"decision": "deny", "reason": CRASH},
        "copilot": copilot_deny(CRASH),
        "qwen": claude_pre(permissionDecision="deny", permissionDecisionReason=CRASH),
    },
    "oops": {  # on_failure="continue": no decision, a note the user sees
        "claude": {"systemMessage": OOPS},
        "codex": {"systemMessage": OOPS},
        "gemini": {"systemMessage": OOPS},
        "copilot": None,
        "qwen": {"systemMessage": OOPS},
    },
    "pwd": {agent: None for agent in OTHERS},
}  # fmt: skip

#: The event name each agent's test fires (Copilot: its own camelCase form).
PRE_TOOL = {"claude": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool",
            "copilot": "preToolUse", "qwen": "PreToolUse"}  # fmt: skip
CASES = [(command, agent) for command, row in ENCODED.items() for agent in row]


@pytest.mark.req("R-A03")
@pytest.mark.parametrize(("command", "agent"), CASES)
async def test_each_answer_in_each_dialect(hooks: Hooks, command: str, agent: str) -> None:
    result = await hooks.fire(
        PRE_TOOL[agent], agent=agent, tool_name="Bash", tool_input={"command": command}
    )
    assert result.encoded is not None
    assert result.encoded.exit_code == 0
    assert result.encoded.stderr == ""
    assert result.encoded.stdout_json == ENCODED[command][agent]
    if agent == "codex":
        assert codex_problem("PreToolUse", result.encoded) is None


STOP = {
    "claude": {"decision": "block", "reason": "not done yet: run the tests"},
    "codex": {"decision": "block", "reason": "not done yet: run the tests"},
    "gemini": {"decision": "deny", "reason": "not done yet: run the tests"},
    "copilot": {"decision": "block", "reason": "not done yet: run the tests"},
    "qwen": {"decision": "block", "reason": "not done yet: run the tests"},
}
PROMPT_CONTEXT = {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
                                         "additionalContext": "run the tests first"}}  # fmt: skip
PROMPT = {
    "claude": PROMPT_CONTEXT,
    "codex": PROMPT_CONTEXT,
    "gemini": {"hookSpecificOutput": {"additionalContext": "run the tests first"}},
    "copilot": PROMPT_CONTEXT,  # PascalCase UserPromptSubmit: Claude's shape
    "qwen": PROMPT_CONTEXT,
}


@pytest.mark.req("R-A03")
@pytest.mark.parametrize("agent", OTHERS)
async def test_stop_and_prompt_answers_in_each_dialect(hooks: Hooks, agent: str) -> None:
    stop = await hooks.fire("Stop", agent=agent, stop_hook_active=False)
    assert stop.encoded is not None and stop.encoded.stdout_json == STOP[agent]
    prompt = await hooks.fire("UserPromptSubmit", agent=agent, prompt="add a feature")
    assert prompt.encoded is not None and prompt.encoded.stdout_json == PROMPT[agent]
    refused = await hooks.fire("UserPromptSubmit", agent=agent, prompt="my secret is x")
    assert refused.encoded is not None and refused.encoded.stdout_json is not None
    expected = "deny" if agent == "gemini" else "block"
    assert refused.encoded.stdout_json["decision"] == expected
    if agent == "codex":
        for event, answer in (("Stop", stop), ("UserPromptSubmit", prompt), ("x", refused)):
            assert answer.encoded is not None
            assert codex_problem(event, answer.encoded) is None


@pytest.mark.req("R-A03")
async def test_copilot_pascal_case_is_answered_in_claudes_shape(hooks: Hooks) -> None:
    result = await hooks.fire(
        "PreToolUse", agent="copilot", tool_name="Bash", tool_input={"command": "rm -rf x"}
    )
    assert result.payload is not None
    assert result.payload["tool_name"] == "Bash"
    assert result.payload["hook_event_name"] == "PreToolUse"
    assert result.encoded is not None
    assert result.encoded.stdout_json == ENCODED["rm -rf x"]["claude"]
    camel = await hooks.fire("userPromptSubmitted", agent="copilot", prompt="add a feature")
    assert camel.encoded is not None and camel.encoded.stdout == b""  # no context there
    stop = await hooks.fire("agentStop", agent="copilot", stop_hook_active=False)
    assert stop.encoded is not None and stop.encoded.stdout_json == STOP["copilot"]


# -- Codex's closed schemas ------------------------------------------------------------


def codex_problem(event: str, encoded: Encoded) -> str | None:
    """What Codex's closed schema for ``event`` finds wrong with the output (None: valid)."""
    output = encoded.stdout_json
    if output is None:
        return None
    name = event if event in ("PreToolUse", "PermissionRequest") else "other"
    schema = json.loads((CODEX_SCHEMAS / f"{name}.output.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    errors = [e.message for e in Draft202012Validator(schema).iter_errors(output)]
    return "; ".join(errors) or None


@pytest.mark.req("R-A04")
@pytest.mark.parametrize(
    "output",
    [
        claude_pre(permissionDecision="allow"),
        claude_pre(permissionDecision="ask", permissionDecisionReason="r"),
        claude_pre(permissionDecision="deny"),
        {"continue": False, "stopReason": "s"},
        {"suppressOutput": True},
        {"decision": "approve"},
    ],
)
def test_the_codex_schema_rejects_what_codex_rejects(output: dict[str, Any]) -> None:
    encoded = Encoded(json.dumps(output).encode())
    assert codex_problem("PreToolUse", encoded) is not None


@pytest.mark.req("R-A04")
def test_codex_permission_request_answers_fit_the_schema() -> None:
    codex = agents.dialect("codex")
    call = HookCall("PermissionRequest", {}, agent="codex")
    from hookd.engine.verdict import Verdict

    for specific, expected in (
        ({"decision": {"behavior": "deny"}}, {"behavior": "deny", "message": DENIED}),
        ({"decision": {"behavior": "allow", "updatedInput": {"a": 1}}},
         {"behavior": "allow", "updatedInput": {"a": 1}}),
    ):  # fmt: skip
        output = {"hookSpecificOutput": {"hookEventName": "PermissionRequest", **specific}}
        encoded = codex.encode(Verdict("PermissionRequest", output=output), call)
        assert encoded.stdout_json == {
            "hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": expected}
        }
        assert codex_problem("PermissionRequest", encoded) is None


# -- when hookd cannot answer ----------------------------------------------------------


@pytest.mark.req("R-A05")
@pytest.mark.parametrize("agent", OTHERS)
def test_a_call_hookd_cannot_run_fails_closed_on_blocking_events(agent: str) -> None:
    dialect = agents.dialect(agent)
    handler = Handler(lambda: None)  # no hooks loaded
    own = {"claude": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool",
           "copilot": "preToolUse", "qwen": "PreToolUse"}[agent]  # fmt: skip
    call = dialect.decode(own, {"tool_name": "Bash", "tool_input": {"command": "ls"}})
    assert isinstance(call, HookCall)
    verdict = trio.run(handler.handle, call)
    assert verdict is not None
    encoded = dialect.encode(verdict, call)
    assert (encoded.exit_code, encoded.stdout) == (2, b"")
    assert "no hooks loaded" in encoded.stderr and "\n" not in encoded.stderr
    post = dialect.decode(dialect.agent_event("PostToolUse") or "PostToolUse", {"tool_name": "x"})
    assert isinstance(post, HookCall)
    verdict = trio.run(handler.handle, post)
    assert verdict is not None
    assert dialect.encode(verdict, post).exit_code == 1  # shown, never obeyed as a block


# -- the kit builds the agent's real payload ---------------------------------------------


@pytest.mark.req("R-A06")
def test_the_kit_builds_each_agents_payload(hooks: Hooks) -> None:
    gemini = hooks.fire_sync("PreToolUse", agent="gemini", tool_input={"command": "ls"})
    assert gemini.payload is not None
    assert gemini.payload["hook_event_name"] == "BeforeTool"
    assert gemini.payload["tool_name"] == "run_shell_command"
    assert "tool_use_id" not in gemini.payload and "timestamp" in gemini.payload
    assert gemini.input["tool_name"] == "Bash"
    copilot = hooks.fire_sync("preToolUse", agent="copilot", tool_input={"command": "ls"})
    assert copilot.payload is not None
    assert {"sessionId", "toolName", "toolArgs"} <= set(copilot.payload)
    assert "hook_event_name" not in copilot.payload
    assert isinstance(copilot.payload["timestamp"], int)
    codex = hooks.fire_sync("PreToolUse", agent="codex", tool_input={"command": "ls"})
    assert codex.payload is not None and "turn_id" in codex.payload
    claude = hooks.fire_sync("PreToolUse", tool_input={"command": "rm -rf x"})
    assert claude.encoded is not None
    assert claude.encoded.stdout_json == ENCODED["rm -rf x"]["claude"]


@pytest.mark.req("R-A06")
def test_the_kit_refuses_an_event_the_agent_never_sends(hooks: Hooks) -> None:
    with pytest.raises(HookdError, match="gemini sends no event for Claude's PermissionRequest"):
        hooks.fire_sync("PermissionRequest", agent="gemini")
    with pytest.raises(HookdError, match="unknown agent"):
        hooks.fire_sync("PreToolUse", agent="cursor")


@pytest.mark.req("R-A05")
def test_a_tool_call_without_its_tool_fails_closed() -> None:
    codex = agents.dialect("codex")
    call = codex.decode("PreToolUse", {"session_id": "s"})
    assert isinstance(call, HookCall)
    verdict = trio.run(load(GUARD).kernel.handle, call)
    assert verdict is not None and verdict.problem is not None
    encoded = codex.encode(verdict, call)
    assert encoded.exit_code == 2
    assert encoded.stderr.startswith("hookd could not check this Codex call: input.tool_name")
