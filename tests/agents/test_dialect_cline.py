"""Cline's dialect: its recorded payloads decoded into Claude's vocabulary, verdicts encoded
into what a Cline hook file prints (a deny replaces the call's input; hookd failing cancels).

The fixtures under ``fixtures/cline/`` are stdin recorded from ``cline`` 3.0.65 (paths
rewritten to ``/home/user``). The dialect is not registered in :mod:`hookd.agents` yet: the
kit's tests register it for their duration.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from types import MappingProxyType
from typing import Any

import msgspec
import pytest
import trio

from hookd import agents
from hookd.agents import Encoded, Unsupported, cline
from hookd.engine.verdict import Problem, Verdict
from hookd.events import EVENTS
from hookd.testing import Hooks, load

ROOT = Path(__file__).resolve().parents[2]
GUARD = str(ROOT / "tests" / "hooks" / "agent_guard.py")
FIXTURES = Path(__file__).parent / "fixtures" / "cline"
DIALECT = cline.DIALECT
EVIL = (
    "no $(touch PWNED1) `touch PWNED2` ; touch PWNED3 && echo 'single' \"double\" \\ "
    "${HOME} %s %n \n; touch PWNED4 #' ; touch PWNED5 '\t*"
)


def fixture(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    return loaded


def decoded(name: str) -> Any:
    call = DIALECT.decode(name.partition(".")[0], fixture(name))
    assert not isinstance(call, Unsupported)
    return call


@pytest.fixture
def hooks(monkeypatch: pytest.MonkeyPatch) -> Hooks:
    monkeypatch.setattr(agents, "DIALECTS", MappingProxyType({**agents.DIALECTS, "cline": DIALECT}))
    return load(GUARD)


def answered(hooks: Hooks, name: str, body: dict[str, Any] | None = None) -> Encoded:
    """A recorded payload through the guard module, as the agent route answers it."""
    call = DIALECT.decode(name.partition(".")[0], body if body is not None else fixture(name))
    assert not isinstance(call, Unsupported)
    kernel = getattr(hooks, "kernel", None) or getattr(hooks, "handler")  # noqa: B009
    verdict = trio.run(kernel.handle, call)
    assert verdict is not None
    return DIALECT.encode(verdict, call)


def encode(event: str, output: dict[str, Any], name: str) -> dict[str, Any] | None:
    call = decoded(name)
    encoded = DIALECT.encode(Verdict(event, output=output), call)
    assert (encoded.exit_code, encoded.stderr) == (0, "")
    return encoded.stdout_json


def deny(reason: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                   "permissionDecisionReason": reason}}  # fmt: skip


# -- decoding ---------------------------------------------------------------------------

DECODED = [
    ("PreToolUse.run_commands.json", "PreToolUse", "Bash", "run_commands",
     {"command": "echo hello\nls -a", "commands": ["echo hello", "ls -a"]}),
    ("PreToolUse.editor.create.json", "PreToolUse", "Write", "editor",
     {"file_path": "/home/user/project/notes.txt", "content": "alpha\nbeta\n"}),
    ("PreToolUse.editor.replace.json", "PreToolUse", "Edit", "editor",
     {"file_path": "/home/user/project/notes.txt", "old_string": "beta\n",
      "new_string": "BETA\n"}),
    ("PreToolUse.editor.insert.json", "PreToolUse", "Edit", "editor",
     {"file_path": "/home/user/project/notes.txt", "old_string": "", "new_string": "zero\n",
      "insert_line": 1}),
    ("PreToolUse.read_files.range.json", "PreToolUse", "Read", "read_files",
     {"file_path": "/home/user/project/notes.txt", "offset": 2, "limit": 2,
      "file_paths": ["/home/user/project/notes.txt", "/etc/hostname"]}),
    ("PreToolUse.search_codebase.json", "PreToolUse", "Grep", "search_codebase",
     {"pattern": "alpha|BE.A", "queries": ["alpha", "BE.A"]}),
    ("PostToolUse.run_commands.json", "PostToolUse", "Bash", "run_commands", {"command":
     "echo hello\nls -a"}),
    ("PostToolUse.editor.create.json", "PostToolUse", "Write", "editor", {}),
    ("TaskStart.json", "SessionStart", None, None, None),
    ("TaskComplete.json", "Stop", None, None, None),
]  # fmt: skip


@pytest.mark.parametrize(("name", "event", "tool", "own_tool", "tool_input"), DECODED)
def test_recorded_payloads_decode_into_valid_claude_inputs(
    name: str, event: str, tool: str | None, own_tool: str | None, tool_input: Any
) -> None:
    call = decoded(name)
    assert (call.event, call.agent, call.agent_event) == (event, "cline", name.partition(".")[0])
    assert call.input["tool_name" if tool else "hook_event_name"] == (tool or event)
    assert call.agent_tool == own_tool
    if tool_input is not None:
        assert tool_input.items() <= call.input["tool_input"].items()
    body = fixture(name)
    assert call.input["session_id"] == body["sessionContext"]["rootSessionId"]
    assert call.input["cwd"] == "/home/user/project"
    assert "agent_id" not in call.input  # Claude's agent_id means a subagent
    assert call.input["cline_agent_id"] == body["agent_id"]
    msgspec.convert(call.input, EVENTS[event].input_type)  # a valid Claude input


def test_tool_results_and_turns_carry_over() -> None:
    post = decoded("PostToolUse.run_commands.json")
    assert post.tool_use_id == post.input["tool_use_id"] == "call_fake_2"
    assert post.input["tool_response"]["stdout"] == "hello\n.\n..\n.clinerules\n"
    assert (
        post.input["duration_ms"]
        == fixture("PostToolUse.run_commands.json")["tool_result"]["durationMs"]
    )
    assert decoded("TaskStart.json").input["source"] == "startup"
    assert decoded("TaskComplete.json").input["last_assistant_message"] == "done"


def test_string_encoded_parameters_are_decoded_when_no_tool_call_is_sent() -> None:
    body = fixture("PreToolUse.run_commands.json")
    del body["tool_call"]
    call = DIALECT.decode("PreToolUse", body)
    assert not isinstance(call, Unsupported)
    assert call.input["tool_input"]["commands"] == ["echo hello", "ls -a"]
    assert call.tool_use_id is None


@pytest.mark.parametrize("own_event", ["TaskCancel", "PreCompact", "Notification"])
def test_events_without_counterpart_are_unsupported(own_event: str) -> None:
    got = DIALECT.decode(own_event, fixture("TaskStart.json"))
    assert isinstance(got, Unsupported) and own_event in got.reason


# -- encoding: PreToolUse ----------------------------------------------------------------


def test_a_shell_deny_replaces_the_commands_with_one_that_prints_the_reason() -> None:
    out = encode("PreToolUse", deny("no recursive deletes"), "PreToolUse.run_commands.json")
    assert out == {"overrideInput": {"commands": [cline.deny_command("no recursive deletes")]}}


@pytest.mark.parametrize("shell", ["/bin/bash", "/bin/sh"])
def test_a_reason_full_of_shell_metacharacters_is_printed_never_run(
    tmp_path: Path, shell: str
) -> None:
    out = encode("PreToolUse", deny(EVIL), "PreToolUse.run_commands.json")
    assert out is not None
    (command,) = out["overrideInput"]["commands"]
    ran = subprocess.run(
        [shell, "-c", command], check=False, cwd=tmp_path, capture_output=True, text=True,
        timeout=10, env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path)},
    )  # fmt: skip
    assert ran.returncode == 1
    assert ran.stderr == f"hookd denied this command: {EVIL}\n"
    assert ran.stdout == ""
    assert list(tmp_path.iterdir()) == []  # nothing of the reason ran


@pytest.mark.parametrize(
    "name", ["PreToolUse.editor.create.json", "PreToolUse.read_files.json",
             "PreToolUse.search_codebase.json"],
)  # fmt: skip
def test_a_file_tool_deny_nulls_the_input_and_tells_the_model(name: str) -> None:
    out = encode("PreToolUse", deny("not in this folder"), name)
    tool = fixture(name)["tool_call"]["name"]
    assert out == {
        "overrideInput": None,
        "contextModification": f"The {tool} call was denied by a hook and did not run: "
        "not in this folder",
    }


def test_a_deny_of_a_tool_without_a_per_call_deny_cancels_the_task() -> None:
    body = fixture("PreToolUse.run_commands.json")
    body["tool_call"] = {"id": "c1", "name": "mcp__db__drop", "input": {"table": "users"}}
    body["preToolUse"] = {"toolName": "mcp__db__drop", "parameters": {"table": "users"}}
    call = DIALECT.decode("PreToolUse", body)
    assert not isinstance(call, Unsupported)
    assert call.input["tool_name"] == "mcp__db__drop"
    encoded = DIALECT.encode(Verdict("PreToolUse", output=deny("no drops")), call)
    assert encoded.stdout_json == {"cancel": True, "errorMessage": "no drops"}


def test_rewrites_become_the_tools_own_input() -> None:
    def rewrite(name: str, updated: dict[str, Any]) -> Any:
        specific = {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                    "updatedInput": updated}  # fmt: skip
        out = encode("PreToolUse", {"hookSpecificOutput": specific}, name)
        return out and out["overrideInput"]

    shell = decoded("PreToolUse.run_commands.json").input["tool_input"]
    assert rewrite("PreToolUse.run_commands.json", {**shell, "command": "ls"}) == {
        "commands": ["ls"]
    }
    assert rewrite("PreToolUse.run_commands.json", {**shell, "commands": ["echo hello", "ls"]}) == {
        "commands": ["echo hello", "ls"]
    }  # the list changed, the joined command kept
    assert rewrite(
        "PreToolUse.editor.create.json", {"file_path": "/tmp/b.txt", "content": "b\n"}
    ) == {"path": "/tmp/b.txt", "new_text": "b\n"}
    assert rewrite(
        "PreToolUse.editor.replace.json",
        {"file_path": "/p/n.txt", "old_string": "x", "new_string": "y"},
    ) == {"path": "/p/n.txt", "old_text": "x", "new_text": "y"}
    assert rewrite(
        "PreToolUse.read_files.json", {"file_path": "/p/a.txt", "offset": 3, "limit": 2}
    ) == {"files": [{"path": "/p/a.txt", "start_line": 3, "end_line": 4}]}


GUARDED = {
    "rm -rf x": {"overrideInput": {"commands": [cline.deny_command("no recursive deletes")]}},
    "sudo ls": {"overrideInput": {"commands": [cline.deny_command(
        f"{cline.APPROVAL_NEEDED}: sudo needs a human")]}},
    "python x.py": {"overrideInput": {"commands": ["python3 x.py"]}},
    "ls -l": None,  # an allow: nothing to say
    "git push": {"contextModification": "the main branch is protected"},
    "halt": {"cancel": True, "errorMessage": "halted by the guard"},
    "crash": {"overrideInput": {"commands": [cline.deny_command(
        "hookd: hook guard raised an exception: the guard crashed")]}},
    "oops": None,  # a systemMessage: Cline shows the user nothing of a hook
    "pwd": None,
}  # fmt: skip


@pytest.mark.parametrize(("command", "expected"), GUARDED.items())
async def test_the_guards_answers_through_the_kit(
    hooks: Hooks, command: str, expected: dict[str, Any] | None
) -> None:
    result = await hooks.fire(
        "PreToolUse", agent="cline", tool_name="Bash", tool_input={"command": command}
    )
    assert result.payload is not None and result.encoded is not None
    assert result.payload["hookName"] == "tool_call"
    assert result.payload["tool_call"]["name"] == "run_commands"
    assert result.payload["preToolUse"]["parameters"] == {"commands": json.dumps([command])}
    assert result.input["tool_input"]["command"] == command
    assert (result.encoded.exit_code, result.encoded.stderr) == (0, "")
    assert result.encoded.stdout_json == expected


def test_the_kit_builds_an_editor_payload_for_write(hooks: Hooks) -> None:
    fired = hooks.fire_sync(
        "PreToolUse", agent="cline", tool_name="Write",
        tool_input={"file_path": "/w/a.txt", "content": "hi\n"},
    )  # fmt: skip
    assert fired.payload is not None
    assert fired.payload["tool_call"]["input"] == {"path": "/w/a.txt", "new_text": "hi\n"}
    assert fired.input["tool_name"] == "Write"
    assert fired.input["tool_input"] == {"file_path": "/w/a.txt", "content": "hi\n"}


def test_recorded_shell_call_through_the_guard(hooks: Hooks) -> None:
    body = fixture("PreToolUse.run_commands.json")
    body["tool_call"]["input"] = {"commands": ["ls", "rm -rf victim_dir"]}
    got = answered(hooks, "PreToolUse.run_commands.json", body)
    assert got.stdout_json == {
        "overrideInput": {"commands": [cline.deny_command("no recursive deletes")]}
    }
    assert answered(hooks, "PreToolUse.run_commands.json").stdout == b""


# -- encoding: the other events, and hookd failing ---------------------------------------


def test_post_tool_use_blocks_and_context_reach_the_model_and_halt_cancels() -> None:
    name = "PostToolUse.run_commands.json"
    assert encode("PostToolUse", {"decision": "block", "reason": "secrets in output"}, name) == {
        "contextModification": "secrets in output"
    }
    context = {"hookSpecificOutput": {"hookEventName": "PostToolUse",
                                      "additionalContext": "tests still fail"}}  # fmt: skip
    assert encode("PostToolUse", context, name) == {"contextModification": "tests still fail"}
    assert encode("PostToolUse", {"continue": False, "stopReason": "enough"}, name) == {
        "cancel": True,
        "errorMessage": "enough",
    }


def test_detached_events_get_no_output() -> None:
    for event, output in (("Stop", {"decision": "block", "reason": "not yet"}),
                          ("SessionStart", {"systemMessage": "hello"})):  # fmt: skip
        name = "TaskComplete.json" if event == "Stop" else "TaskStart.json"
        assert encode(event, output, name) is None


@pytest.mark.parametrize(
    ("name", "event"),
    [("PreToolUse.run_commands.json", "PreToolUse"),
     ("PreToolUse.editor.create.json", "PreToolUse"),
     ("PostToolUse.run_commands.json", "PostToolUse")],
)  # fmt: skip
def test_hookd_failing_cancels_a_blocking_call_and_never_exits_2(name: str, event: str) -> None:
    call = decoded(name)
    verdict = Verdict(event, problem=Problem("unavailable", "no hooks\nloaded"))
    encoded = DIALECT.encode(verdict, call)
    assert encoded.exit_code != 2
    if event == "PreToolUse":
        assert (encoded.exit_code, encoded.stderr) == (0, "")
        assert encoded.stdout_json == {
            "cancel": True,
            "errorMessage": "hookd could not check this Cline call: no hooks loaded",
        }
    else:  # Cline reads nothing of it: the tool has run
        assert (encoded.exit_code, encoded.stdout) == (1, b"")
        assert encoded.stderr == "hookd: no hooks loaded"
