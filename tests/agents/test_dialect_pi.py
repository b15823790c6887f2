"""pi's dialect (:mod:`hookd.agents.pi`): the bodies ``hookd-pi.ts`` POSTs decoded into Claude's
vocabulary, verdicts encoded into the answer the extension reads, and the extension's settings
line; through the testing kit and the route, as :data:`hookd.agents.DIALECTS` registers it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
import trio

from hookd import agents
from hookd.agents import Unsupported, pi
from hookd.engine.verdict import Problem, Verdict
from hookd.events import EVENTS
from hookd.serve.http.agent_answer import AgentAnswers
from hookd.testing import Hooks, load
from tests.support.pi_daemon import engine_of

ROOT = Path(__file__).resolve().parents[2]
GUARD = str(ROOT / "tests" / "hooks" / "agent_guard.py")
FIXTURES = ROOT / "tests" / "agents" / "fixtures" / "pi"
DIALECT = pi.DIALECT


def test_pi_is_registered() -> None:
    assert agents.dialect("pi") is DIALECT


@pytest.fixture
def hooks() -> Hooks:
    return load(GUARD)


def claude_valid(event: str, data: dict[str, Any]) -> None:
    """Fails unless ``data`` is a valid input of Claude's ``event``."""
    msgspec.convert(data, EVENTS[event].input_type)


def call_of(pi_event: str, body: dict[str, Any]) -> Any:
    call = DIALECT.decode(pi_event, body)
    assert not isinstance(call, Unsupported), call
    return call


# -- decoding ------------------------------------------------------------------------------

BASE = {"session_id": "s1", "transcript_path": "/t.jsonl", "cwd": "/w", "model": "fake-model"}
DECODED = [
    ("tool_call", {"tool_name": "bash", "tool_input": {"command": "ls"}, "tool_use_id": "c1"},
     "PreToolUse", "Bash"),
    ("tool_call", {"tool_name": "read", "tool_input": {"path": "a"}, "tool_use_id": "c1"},
     "PreToolUse", "Read"),
    ("tool_call", {"tool_name": "edit", "tool_input": {"path": "a", "edits": []},
                   "tool_use_id": "c1"}, "PreToolUse", "Edit"),
    ("tool_call", {"tool_name": "write", "tool_input": {"path": "a", "content": ""},
                   "tool_use_id": "c1"}, "PreToolUse", "Write"),
    ("tool_call", {"tool_name": "grep", "tool_input": {"pattern": "x"}, "tool_use_id": "c1"},
     "PreToolUse", "Grep"),
    ("tool_call", {"tool_name": "find", "tool_input": {"pattern": "*.py"}, "tool_use_id": "c1"},
     "PreToolUse", "Glob"),
    ("tool_call", {"tool_name": "ls", "tool_input": {}, "tool_use_id": "c1"}, "PreToolUse", "LS"),
    ("tool_call", {"tool_name": "my_tool", "tool_input": {}, "tool_use_id": "c1"},
     "PreToolUse", "my_tool"),
    ("tool_result", {"tool_name": "bash", "tool_input": {"command": "ls"}, "tool_use_id": "c1",
                     "tool_response": {"content": [], "is_error": False}}, "PostToolUse", "Bash"),
    ("input", {"prompt": "hi", "source": "interactive"}, "UserPromptSubmit", None),
    ("agent_end", {"stop_hook_active": False, "last_assistant_message": "done"}, "Stop", None),
    ("session_start", {"source": "startup"}, "SessionStart", None),
    ("session_shutdown", {"reason": "quit"}, "SessionEnd", None),
]  # fmt: skip


@pytest.mark.parametrize(("pi_event", "body", "event", "tool"), DECODED)
def test_decode_maps_events_and_tools(
    pi_event: str, body: dict[str, Any], event: str, tool: str | None
) -> None:
    call = call_of(pi_event, {"hook_event_name": pi_event, **BASE, **body})
    assert (call.event, call.agent, call.agent_event) == (event, "pi", pi_event)
    assert call.input["hook_event_name"] == event
    assert call.input.get("tool_name") == tool
    assert call.agent_tool == body.get("tool_name")
    assert call.input.get("tool_input") == body.get("tool_input")  # pi's arguments, unchanged
    claude_valid(event, call.input)


@pytest.mark.parametrize(
    ("pi_event", "field", "theirs", "ours"),
    [
        ("session_start", "source", "new", "clear"),
        ("session_start", "source", "reload", "reload"),
        ("input", "source", "interactive", "user"),
        ("input", "source", "extension", "system"),
        ("session_shutdown", "reason", "quit", "prompt_input_exit"),
        ("session_shutdown", "reason", "fork", "other"),
    ],
)
def test_pi_values_become_claudes(pi_event: str, field: str, theirs: str, ours: str) -> None:
    assert call_of(pi_event, {field: theirs}).input[field] == ours


@pytest.mark.parametrize("pi_event", ["turn_end", "before_agent_start", "context", "user_bash"])
def test_a_pi_event_without_counterpart_is_unsupported(pi_event: str) -> None:
    got = DIALECT.decode(pi_event, {})
    assert isinstance(got, Unsupported)
    assert pi_event in got.reason and "\n" not in got.reason


def test_the_bodies_the_extension_sent_decode_into_valid_claude_inputs() -> None:
    """``bodies.json``: what ``hookd-pi.ts`` POSTed in a real run of the pinned pi."""
    bodies = json.loads((FIXTURES / "bodies.json").read_text())["bodies"]
    assert set(bodies) == set(pi.EVENTS)
    for pi_event, body in bodies.items():
        assert set(body) <= pi.SENT, pi_event
        call = call_of(pi_event, body)
        claude_valid(call.event, call.input)
        assert call.input["session_id"] == body["session_id"] != ""
    pre = call_of("tool_call", bodies["tool_call"])
    assert pre.tool_use_id == bodies["tool_call"]["tool_use_id"]
    assert pre.input["tool_input"] == {"command": "echo hi > a.txt"}


@pytest.mark.parametrize("tool", ["bash", "write", "edit", "read"])
def test_each_recorded_tool_call_decodes(tool: str) -> None:
    """``tool_call.<tool>.json``: pi's own event and ctx, made into the extension's body."""
    recorded = json.loads((FIXTURES / f"tool_call.{tool}.json").read_text())
    event, ctx = recorded["event"], recorded["ctx"]
    assert event["type"] == "tool_call" and event["toolName"] == tool
    assert {"cwd", "sessionManager", "model", "hasUI", "signal", "abort", "ui"} <= set(ctx["keys"])
    body = {"hook_event_name": "tool_call", "session_id": ctx["sessionId"],
            "transcript_path": ctx["sessionFile"], "cwd": ctx["cwd"], "model": ctx["model"]["id"],
            "tool_name": event["toolName"], "tool_input": event["input"],
            "tool_use_id": event["toolCallId"]}  # fmt: skip
    call = call_of("tool_call", body)
    assert call.input["tool_name"] == pi.TOOLS[tool]
    claude_valid("PreToolUse", call.input)


# -- encoding ------------------------------------------------------------------------------

#: command -> the extension's answer as JSON (None: nothing at all); exit 0 throughout.
ENCODED: dict[str, dict[str, Any] | None] = {
    "rm -rf x": {"block": True, "reason": "no recursive deletes"},
    "sudo ls": {"ask": True, "reason": "sudo needs a human"},
    "python x.py": {"input": {"command": "python3 x.py"}},
    "ls -l": None,  # an allow: pi runs it as it would without the extension
    "git push": {"context": "the main branch is protected"},
    "halt": {"block": True, "halt": True, "reason": "halted by the guard"},
    "crash": {"block": True,
              "reason": "hookd: hook guard raised an exception: the guard crashed"},
    "oops": {"systemMessage": "hookd: hook lenient raised an exception: the lenient hook crashed"},
    "pwd": None,
}  # fmt: skip


@pytest.mark.parametrize("command", list(ENCODED))
async def test_each_answer_for_the_extension(hooks: Hooks, command: str) -> None:
    result = await hooks.fire(
        "tool_call", agent="pi", tool_name="Bash", tool_input={"command": command}
    )
    assert result.encoded is not None
    assert (result.encoded.exit_code, result.encoded.stderr) == (0, "")
    assert result.encoded.stdout_json == ENCODED[command]
    assert hooks.state["seen"][-1] == ("pi", "PreToolUse", "tool_call", "bash")


async def test_prompt_stop_and_result_answers(hooks: Hooks) -> None:
    prompt = await hooks.fire("input", agent="pi", prompt="add a feature")
    assert prompt.encoded is not None
    assert prompt.encoded.stdout_json == {"context": "run the tests first"}
    refused = await hooks.fire("input", agent="pi", prompt="my secret is x")
    assert refused.encoded is not None
    refusal = {"block": True, "reason": "prompts with secrets are refused"}
    assert refused.encoded.stdout_json == refusal
    stop = await hooks.fire("agent_end", agent="pi", stop_hook_active=False)
    assert stop.encoded is not None
    assert stop.encoded.stdout_json == {"block": True, "reason": "not done yet: run the tests"}
    again = await hooks.fire("agent_end", agent="pi", stop_hook_active=True)
    assert again.encoded is not None and again.encoded.stdout == b""
    post = await hooks.fire("tool_result", agent="pi", tool_name="Bash")
    assert post.encoded is not None and post.encoded.stdout == b""


@pytest.mark.parametrize(
    ("event", "output", "answer"),
    [
        ("PostToolUse", {"decision": "block", "reason": "bad output"},
         {"block": True, "reason": "bad output"}),
        ("PostToolUse", {"hookSpecificOutput": {"hookEventName": "PostToolUse",
                                                "additionalContext": "note"}},
         {"context": "note"}),
        ("SessionStart", {"hookSpecificOutput": {"hookEventName": "SessionStart",
                                                 "additionalContext": "hello"}},
         {"context": "hello"}),
        ("Stop", {"continue": False, "stopReason": "enough"}, {"halt": True, "reason": "enough"}),
        ("PreToolUse", {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                               "permissionDecision": "deny"}},
         {"block": True, "reason": pi.DEFAULT_REASON}),
        ("PreToolUse", {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                               "permissionDecision": "ask"}},
         {"ask": True, "reason": pi.APPROVAL_NEEDED}),
        ("PreToolUse", {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                               "permissionDecision": "deny",
                                               "additionalContext": "x"}},
         {"block": True, "reason": pi.DEFAULT_REASON}),
        ("SessionEnd", {"systemMessage": "bye"}, {"systemMessage": "bye"}),
    ],
)  # fmt: skip
def test_encoded_answers(event: str, output: dict[str, Any], answer: dict[str, Any]) -> None:
    own = DIALECT.agent_event(event) or event
    call = call_of(own, {"tool_name": "bash", "tool_input": {}, "tool_use_id": "c"})
    assert DIALECT.encode(Verdict(event, output=output), call).stdout_json == answer


@pytest.mark.parametrize(("pi_event", "code"), [("tool_call", 2), ("input", 2),
                                                ("tool_result", 1), ("agent_end", 1)])  # fmt: skip
def test_a_call_hookd_cannot_run_fails_closed_on_blocking_events(pi_event: str, code: int) -> None:
    call = call_of(pi_event, {"tool_name": "bash", "tool_input": {}, "tool_use_id": "c"})
    verdict = Verdict(call.event, problem=Problem("unavailable", "no hooks loaded"))
    encoded = DIALECT.encode(verdict, call)
    assert (encoded.exit_code, encoded.stdout) == (code, b"")
    assert "no hooks loaded" in encoded.stderr and "\n" not in encoded.stderr


def test_the_route_answers_pi_in_the_shims_shape() -> None:
    hooks = load(GUARD)
    route = AgentAnswers(engine_of(hooks))
    body = {"hook_event_name": "tool_call", **BASE, "tool_name": "bash",
            "tool_input": {"command": "rm -rf /"}, "tool_use_id": "c1"}  # fmt: skip
    got = trio.run(route.post, "pi/tool_call", json.dumps(body).encode())
    assert got.status == 200 and dict(got.headers) == {b"x-hookd-exit": b"0"}
    assert json.loads(got.body) == {"block": True, "reason": "no recursive deletes"}
    ignored = trio.run(route.post, "pi/turn_end", b"{}")
    assert (ignored.status, ignored.body) == (200, b"")
    assert dict(ignored.headers) == {b"x-hookd-exit": b"0"}


def test_the_kit_builds_the_extensions_body(hooks: Hooks) -> None:
    got = hooks.fire_sync("PreToolUse", agent="pi", tool_input={"command": "ls"})
    assert got.payload is not None
    assert got.payload["hook_event_name"] == "tool_call"
    assert got.payload["tool_name"] == "bash"
    assert set(got.payload) <= pi.SENT
    end = hooks.fire_sync("SessionEnd", agent="pi", reason="prompt_input_exit")
    assert end.payload is not None and end.payload["reason"] == "quit"


# -- the extension's settings line -----------------------------------------------------------

SETTINGS = re.compile(r"^const SETTINGS: Settings = (.*); // hookd:settings$", re.M)


def settings_of(source: str) -> dict[str, Any]:
    (found,) = SETTINGS.findall(source)
    value: dict[str, Any] = json.loads(found)
    return value


def test_the_shipped_extension_names_no_daemon() -> None:
    shipped = settings_of(Path(pi.PLUGIN).read_text())
    assert shipped["port"] == 0 and shipped["readyFile"] == "" and shipped["failOpen"] is False
    assert shipped["routes"]["tool_call"] == {"deadline": 55, "closed": True}


def test_extension_source_fills_the_settings_and_never_the_token(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("s3cret-token-0123456789\n")
    source = pi.extension_source(
        port=4242, token_file=str(token_file), ready_file="/run/x.json", hookd="/bin/hookd",
        module="/p/hooks.py", routes={"tool_call": (7, True), "agent_end": (3, False)},
    )  # fmt: skip
    assert settings_of(source) == {
        "key": "", "port": 4242, "tokenFile": str(token_file), "readyFile": "/run/x.json",
        "hookd": "/bin/hookd", "module": "/p/hooks.py", "failOpen": False,
        "routes": {"tool_call": {"deadline": 7, "closed": True},
                   "agent_end": {"deadline": 3, "closed": False}},
    }  # fmt: skip
    assert "s3cret" not in source
    assert source.count("\n") == Path(pi.PLUGIN).read_text().count("\n")
    with pytest.raises(ValueError, match="pi has no event 'turn_end'"):
        pi.extension_source(port=1, token_file="t", ready_file="r", routes={"turn_end": (1, True)})


def test_the_extension_imports_node_built_ins_only() -> None:
    source = Path(pi.PLUGIN).read_text()
    imports = re.findall(r'^import .* from "([^"]+)";$', source, re.M)
    assert imports and all(name.startswith("node:") for name in imports), imports
    assert "require(" not in source and "import(" not in source
