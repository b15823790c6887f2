"""OpenCode's and Kilo CLI's dialect (hookd/agents/opencode.py): the bodies hookd's plugin
posts, built from the hook objects recorded in the real CLIs (tests/agents/fixtures/opencode/,
opencode-ai 1.18.33 and @kilocode/cli 7.8.1), decoded into Claude's vocabulary, and verdicts
encoded into the small JSON the plugin reads.

These tests call the dialect directly (decode a body, run the call through a real kernel with
tests/hooks/agent_guard.py loaded, encode the verdict), and through the testing kit, as
:data:`hookd.agents.DIALECTS` registers it (``opencode`` and ``kilo``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import trio

from hookd.agents import Encoded, Unsupported
from hookd.agents.dialect import payload
from hookd.agents.opencode import (
    APPROVAL_NEEDED,
    DIALECT,
    KILO,
    PLUGIN,
    SENT,
    own_args,
    plugin_source,
)
from hookd.agents.plugin_settings import read_settings
from hookd.engine.call import HookCall
from hookd.engine.verdict import Problem, Verdict
from hookd.testing import Hooks, load
from tests.serve.http.client import serve_http

ROOT = Path(__file__).resolve().parents[2]
GUARD = str(ROOT / "tests" / "hooks" / "agent_guard.py")
FIXTURES = Path(__file__).with_name("fixtures") / "opencode"
AGENTS = ("opencode", "kilo")
PLUGIN_KEYS = {"decision", "reason", "updatedInput", "context"}


def fixture(agent: str, name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((FIXTURES / f"{agent}.{name}.json").read_text())
    return loaded


def body(agent: str, name: str) -> dict[str, Any]:
    """What the plugin posts for the recorded hook ``name`` (tool.execute.before/after)."""
    rec = fixture(agent, name)
    event, i, o = rec["hook"], rec["input"], rec["output"]
    sent = {"hook_event_name": event, "session_id": i["sessionID"], "cwd": "/home/user/project",
            "agent": agent, "tool_name": i["tool"], "tool_use_id": i["callID"]}  # fmt: skip
    if event == "tool.execute.before":
        return {**sent, "tool_input": o["args"]}
    return {**sent, "tool_input": i["args"], "tool_response": o["output"]}


@pytest.fixture(scope="module")
def hooks() -> Hooks:
    return load(GUARD)


def dialect(agent: str) -> Any:
    return DIALECT if agent == "opencode" else KILO


def plugin_problem(encoded: Encoded) -> str | None:
    """What the plugin would not read in the answer (None: all of it is read)."""
    if encoded.exit_code not in (0, 1, 2):
        return f"exit {encoded.exit_code}"
    if encoded.exit_code != 0:
        if encoded.stdout or not encoded.stderr or "\n" in encoded.stderr.strip():
            return "a non-zero exit carries one line and no JSON"
        return None
    out = encoded.stdout_json
    if out is None:
        return None
    if not set(out) <= PLUGIN_KEYS:
        return f"unknown keys {sorted(set(out) - PLUGIN_KEYS)}"
    if out.get("decision") == "deny" and not out.get("reason"):
        return "a deny without a reason"
    if "updatedInput" in out and not isinstance(out["updatedInput"], dict):
        return "updatedInput is not an object"
    return None


def answer(hooks: Hooks, agent: str, sent: dict[str, Any]) -> Encoded:
    """The plugin's body through the dialect and a real kernel, back as the plugin's answer."""
    d = dialect(agent)
    call = d.decode(sent["hook_event_name"], sent)
    assert isinstance(call, HookCall)
    verdict = trio.run(hooks.kernel.handle, call)
    assert verdict is not None
    encoded: Encoded = d.encode(verdict, call)
    assert plugin_problem(encoded) is None, encoded
    return encoded


def bash(agent: str, command: str) -> dict[str, Any]:
    sent = body(agent, "bash.before")
    return {**sent, "tool_input": {**sent["tool_input"], "command": command}}


# -- decoding ------------------------------------------------------------------------------


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize(
    ("name", "tool", "claude_input"),
    [
        ("bash.before", "Bash", {"command": "echo ok > harmless.txt"}),
        ("write.before", "Write", {"file_path": "/home/user/project/new.txt",
                                   "content": "hello\n"}),
        ("read.before", "Read", {"file_path": "/home/user/project/notes.txt"}),
        ("edit.before", "Edit", {"file_path": "/home/user/project/notes.txt",
                                 "old_string": "beta", "new_string": "gamma"}),
    ],
)  # fmt: skip
def test_a_recorded_tool_call_decodes_into_claudes_names(
    agent: str, name: str, tool: str, claude_input: dict[str, Any]
) -> None:
    sent = body(agent, name)
    call = dialect(agent).decode("tool.execute.before", sent)
    assert isinstance(call, HookCall)
    assert (call.event, call.agent, call.agent_event) == (
        "PreToolUse",
        agent,
        "tool.execute.before",
    )
    assert call.agent_tool == sent["tool_name"]
    assert call.input["tool_name"] == tool
    assert call.input["tool_input"] == claude_input
    assert call.input["session_id"] == sent["session_id"]
    assert call.tool_use_id == sent["tool_use_id"]
    assert call.input["transcript_path"] == ""  # not sent: Claude's required field filled


@pytest.mark.parametrize("agent", AGENTS)
def test_a_recorded_tool_result_decodes_as_post_tool_use(agent: str) -> None:
    call = dialect(agent).decode("tool.execute.after", body(agent, "bash.after"))
    assert isinstance(call, HookCall)
    assert (call.event, call.input["tool_name"]) == ("PostToolUse", "Bash")
    assert call.input["tool_response"] == "(no output)"


@pytest.mark.parametrize(
    ("own", "claude"),
    [("tool.execute.before", "PreToolUse"), ("tool.execute.after", "PostToolUse"),
     ("chat.message", "UserPromptSubmit"), ("session.created", "SessionStart"),
     ("session.idle", "Stop"), ("session.deleted", "SessionEnd")],
)  # fmt: skip
def test_each_forwarded_event_has_its_claude_name(own: str, claude: str) -> None:
    assert DIALECT.claude_event(own) == claude
    assert DIALECT.agent_event(claude) == own


def test_tools_and_an_event_without_counterpart() -> None:
    for own, claude in [("glob", "Glob"), ("grep", "Grep"), ("task", "Task"),
                        ("webfetch", "WebFetch")]:  # fmt: skip
        call = DIALECT.decode("tool.execute.before", {"tool_name": own, "tool_input": {}})
        assert isinstance(call, HookCall) and call.input["tool_name"] == claude
    grep = DIALECT.decode("tool.execute.before", {"tool_name": "grep",
                          "tool_input": {"pattern": "x", "include": "*.py"}})  # fmt: skip
    assert isinstance(grep, HookCall) and grep.input["tool_input"] == {
        "pattern": "x",
        "glob": "*.py",
    }
    assert isinstance(DIALECT.decode("permission.ask", {}), Unsupported)


# -- encoding: the verdicts of the agents' guard -------------------------------------------


@pytest.mark.parametrize("agent", AGENTS)
def test_a_denied_command_is_a_deny_with_its_reason(hooks: Hooks, agent: str) -> None:
    encoded = answer(hooks, agent, bash(agent, "rm -rf victim_dir"))
    assert encoded.stdout_json == {"decision": "deny", "reason": "no recursive deletes"}


@pytest.mark.parametrize("agent", AGENTS)
def test_a_harmless_command_gets_no_answer(hooks: Hooks, agent: str) -> None:
    assert answer(hooks, agent, bash(agent, "echo ok > harmless.txt")) == Encoded()
    assert answer(hooks, agent, bash(agent, "ls -l")) == Encoded()  # a bare allow: go on


def test_an_updated_input_comes_back_in_opencodes_names(hooks: Hooks) -> None:
    encoded = answer(hooks, "opencode", bash("opencode", "python x.py"))
    assert encoded.stdout_json == {"decision": "allow", "updatedInput": {"command": "python3 x.py"}}


def test_ask_and_halt_are_denies_with_reasons(hooks: Hooks) -> None:
    ask = answer(hooks, "opencode", bash("opencode", "sudo ls"))
    assert ask.stdout_json == {
        "decision": "deny",
        "reason": f"{APPROVAL_NEEDED}: sudo needs a human",
    }
    halt = answer(hooks, "opencode", bash("opencode", "halt"))
    assert halt.stdout_json == {"decision": "deny", "reason": "halted by the guard"}


def test_context_of_a_tool_call(hooks: Hooks) -> None:
    encoded = answer(hooks, "opencode", bash("opencode", "git push"))
    assert encoded.stdout_json == {"context": "the main branch is protected"}


def test_a_hook_that_crashes_fails_closed(hooks: Hooks) -> None:
    encoded = answer(hooks, "kilo", bash("kilo", "crash"))
    assert encoded.exit_code == 0 and encoded.stdout_json is not None  # on_failure="block"
    assert encoded.stdout_json["decision"] == "deny"


def test_prompt_and_stop_answers(hooks: Hooks) -> None:
    base = {"session_id": "ses_1", "cwd": "/w", "agent": "opencode"}
    prompt = answer(hooks, "opencode", {**base, "hook_event_name": "chat.message",
                                        "prompt": "add a feature"})  # fmt: skip
    assert prompt.stdout_json == {"context": "run the tests first"}
    refused = answer(hooks, "opencode", {**base, "hook_event_name": "chat.message",
                                         "prompt": "my secret is x"})  # fmt: skip
    assert refused.stdout_json == {
        "decision": "block",
        "reason": "prompts with secrets are refused",
    }
    stop = answer(hooks, "opencode", {**base, "hook_event_name": "session.idle",
                                      "stop_hook_active": False})  # fmt: skip
    assert stop.stdout_json == {"decision": "block", "reason": "not done yet: run the tests"}
    post = answer(hooks, "opencode", body("opencode", "bash.after"))
    assert post == Encoded()


def test_a_write_rewritten_by_a_hook_keeps_opencodes_argument_names(tmp_path: Path) -> None:
    module = tmp_path / "redirect.py"
    module.write_text(
        "import hookd\n"
        "from hookd import update_input\n"
        "@hookd.hook('PreToolUse', 'Write')\n"
        "async def redirect(input_data, tool_use_id, context):\n"
        "    return update_input({**input_data['tool_input'],\n"
        "                         'file_path': input_data['tool_input']['file_path'] + '.bak'})\n"
    )
    encoded = answer(load(str(module)), "opencode", body("opencode", "write.before"))
    assert encoded.stdout_json == {
        "decision": "allow",
        "updatedInput": {"filePath": "/home/user/project/new.txt.bak", "content": "hello\n"},
    }


@pytest.mark.parametrize("agent", AGENTS)
def test_a_call_hookd_cannot_run_is_one_line(agent: str) -> None:
    d = dialect(agent)
    pre = HookCall("PreToolUse", {}, agent=agent, agent_event="tool.execute.before")
    problem = Problem("unavailable", "no hooks loaded")
    encoded = d.encode(Verdict("PreToolUse", problem=problem), pre)
    assert (encoded.exit_code, encoded.stdout) == (2, b"")
    assert "no hooks loaded" in encoded.stderr and "\n" not in encoded.stderr
    assert ("Kilo CLI" if agent == "kilo" else "OpenCode") in encoded.stderr
    post = HookCall("PostToolUse", {}, agent=agent, agent_event="tool.execute.after")
    assert d.encode(Verdict("PostToolUse", problem=problem), post).exit_code == 1


def test_a_system_message_is_dropped() -> None:
    call = HookCall("PreToolUse", {}, agent="opencode", agent_event="tool.execute.before")
    encoded = DIALECT.encode(Verdict("PreToolUse", output={"systemMessage": "hi"}), call)
    assert encoded == Encoded()


# -- the kit's direction, and the plugin's settings ----------------------------------------


def test_the_kit_builds_the_plugins_body() -> None:
    built = payload(DIALECT, "PreToolUse", {"session_id": "s", "cwd": "/w", "tool_name": "Edit",
                    "tool_input": {"file_path": "/w/a", "old_string": "x", "new_string": "y"},
                    "transcript_path": ""})  # fmt: skip
    assert built == {"hook_event_name": "tool.execute.before", "session_id": "s", "cwd": "/w",
                     "agent": "opencode", "tool_name": "edit",
                     "tool_input": {"filePath": "/w/a", "oldString": "x",
                                    "newString": "y"}}  # fmt: skip
    assert set(built) <= SENT
    post = payload(DIALECT, "PostToolUse", {"tool_name": "Bash", "tool_input": {"command": "ls"},
                   "tool_response": {"stdout": "a\n", "stderr": ""}})  # fmt: skip
    assert post["tool_response"] == "a\n"
    assert own_args("read", {"file_path": "/x", "limit": 3}) == {"filePath": "/x", "limit": 3}


def test_plugin_source_fills_the_settings_line_and_nothing_else() -> None:
    source = PLUGIN.read_text()
    text = plugin_source(
        "kilo", port=8765, token_file="/s/token", ready_file="/r/m.json", hookd="/bin/hookd",
        module="/p/hooks.py", routes={"tool.execute.before": (7, True), "chat.message": (9, False)},
        fail_open=True, key="hooks-0123",
    )  # fmt: skip
    assert read_settings(text) == {
        "agent": "kilo", "key": "hooks-0123", "port": 8765, "tokenFile": "/s/token",
        "readyFile": "/r/m.json", "hookd": "/bin/hookd", "module": "/p/hooks.py",
        "failOpen": True, "routes": {"tool.execute.before": {"deadline": 7, "closed": True},
                                     "chat.message": {"deadline": 9, "closed": False}},
    }  # fmt: skip
    changed = [
        (a, b) for a, b in zip(source.splitlines(), text.splitlines(), strict=True) if a != b
    ]
    assert len(changed) == 1
    shipped = read_settings(source)
    assert shipped is not None and shipped["port"] == 0 and shipped["readyFile"] == ""
    with pytest.raises(ValueError, match=r"kilo has no event 'message\.updated'"):
        plugin_source("kilo", port=1, token_file="t", ready_file="r",
                      routes={"message.updated": (1, True)})  # fmt: skip


@pytest.mark.req("R-A06")
@pytest.mark.parametrize("agent", AGENTS)
async def test_the_kit_fires_through_the_registered_dialect(agent: str) -> None:
    hooks = load(GUARD)
    result = await hooks.fire(
        "PreToolUse", agent=agent, tool_name="Bash", tool_input={"command": "rm -rf x"}
    )
    assert result.payload is not None and result.payload["agent"] == agent
    assert result.payload["hook_event_name"] == "tool.execute.before"
    assert result.encoded is not None
    assert result.encoded.stdout_json == {"decision": "deny", "reason": "no recursive deletes"}


def test_the_plugin_keeps_no_secret_and_imports_only_node_built_ins() -> None:
    source = PLUGIN.read_text()
    imports = [line for line in source.splitlines() if line.startswith("import ")]
    assert imports and all('from "node:' in line for line in imports)
    assert "Bearer ${secret}" in source  # the token goes into the request, read at call time
    assert re.findall(r"process\.env\.?\w*", source) == ["process.env.HOOKD_RECORD_ID"]


@pytest.mark.req("R-A07")
async def test_the_route_takes_opencodes_dotted_event_names(tmp_path: Path) -> None:
    body = bash("kilo", "rm -rf victim_dir")
    async with serve_http(tmp_path, hooks=GUARD) as served:
        client = await served.client()
        reply = await client.request("POST", "/agent/kilo/tool.execute.before",
                                     json.dumps(body).encode())  # fmt: skip
        odd = await client.request("POST", "/agent/kilo/tool..before", b"{}")
    assert reply.status == 200 and reply.headers["x-hookd-exit"] == "0"
    assert json.loads(reply.body) == {"decision": "deny", "reason": "no recursive deletes"}
    assert odd.status == 404
