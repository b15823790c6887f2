"""The real Claude Code CLI, offline against the fake API, driven by a tiny host written here.

This proves the harness (fake API, clean environment, flags), independently of hookd: the
host spawns the CLI, sends ``initialize`` with one ``PreToolUse`` hook, submits a prompt,
answers every control request, and reads until ``result``. The first tests check the fake
API itself over plain HTTP.
"""

from __future__ import annotations

import json
import subprocess
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio

from tests.support.claude_cli import cli_args, cli_env, user_message
from tests.support.fake_anthropic import (
    FakeAnthropic,
    Turn,
    bash,
    message_texts,
    run_tool_then_done,
    tool_calls,
)

JsonObject = dict[str, Any]
Answer = Callable[[JsonObject], JsonObject]

SESSION_TIMEOUT_S = 60.0
EXIT_TIMEOUT_S = 15.0
MAX_LINE_BYTES = 16 * 1024 * 1024
HOOKS = {"PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0"]}]}


@dataclass
class Session:
    """Everything one CLI run wrote on stdout, and how it ended."""

    messages: list[JsonObject] = field(default_factory=list)
    returncode: int | None = None

    def control_requests(self, subtype: str) -> list[JsonObject]:
        return [
            m["request"]
            for m in self.messages
            if m.get("type") == "control_request" and m["request"].get("subtype") == subtype
        ]

    @property
    def result(self) -> JsonObject:
        results = [m for m in self.messages if m.get("type") == "result"]
        assert len(results) == 1, results
        return results[0]


async def json_lines(stream: trio.abc.ReceiveStream) -> AsyncIterator[JsonObject]:
    """Parse newline-delimited JSON objects from ``stream`` until EOF."""
    buffer = b""
    async for chunk in stream:
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        assert len(buffer) <= MAX_LINE_BYTES, "runaway line from the CLI"
        for line in lines:
            if line.strip():
                yield json.loads(line)


def control_response(request: JsonObject, answers: Mapping[str, Answer]) -> JsonObject:
    """The host's answer to one control request: the scripted payload, or an error."""
    body = request["request"]
    answer = answers.get(body.get("subtype", ""))
    response: JsonObject = (
        {"subtype": "success", "response": answer(body)}
        if answer is not None
        else {"subtype": "error", "error": f"unsupported: {body.get('subtype')}"}
    )
    return {
        "type": "control_response",
        "response": {**response, "request_id": request["request_id"]},
    }


async def converse(
    proc: trio.Process, prompt: str, answers: Mapping[str, Answer], session: Session
) -> None:
    """Initialize, submit ``prompt``, answer requests; close stdin at ``result``; read to EOF."""
    assert proc.stdin is not None
    assert proc.stdout is not None
    stdin = proc.stdin

    async def send(message: JsonObject) -> None:
        await stdin.send_all(json.dumps(message).encode() + b"\n")

    init = {"subtype": "initialize", "hooks": HOOKS}
    await send({"type": "control_request", "request_id": "req_1_smoke", "request": init})
    await send(user_message(prompt))
    async for message in json_lines(proc.stdout):
        session.messages.append(message)
        match message.get("type"):
            case "control_request":
                await send(control_response(message, answers))
            case "result":
                await stdin.aclose()


async def run_session(
    binary: Path, workdir: Path, api: FakeAnthropic, prompt: str, answers: Mapping[str, Answer]
) -> Session:
    """Run one CLI session to exit; the CLI is killed if any step overruns its deadline."""
    home = workdir / "home"
    cwd = workdir / "project"
    cwd.mkdir()
    session = Session()
    args = cli_args(binary, permission_prompt_tool=True)
    with (workdir / "cli-stderr.txt").open("wb") as stderr:
        run = partial(
            trio.run_process, args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=stderr, cwd=cwd, env=cli_env(home, api.base_url), check=False,
        )  # fmt: skip
        async with trio.open_nursery() as nursery:
            proc: trio.Process = await nursery.start(run)
            with trio.fail_after(SESSION_TIMEOUT_S):
                await converse(proc, prompt, answers, session)
            with trio.fail_after(EXIT_TIMEOUT_S):
                session.returncode = await proc.wait()
    return session


def allow_hook(body: JsonObject) -> JsonObject:
    event = body["input"]["hook_event_name"]
    return {"hookSpecificOutput": {"hookEventName": event, "permissionDecision": "allow"}}


def context_hook(body: JsonObject) -> JsonObject:
    event = body["input"]["hook_event_name"]
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": "ctx-from-host"}}


def allow_tool(body: JsonObject) -> JsonObject:
    return {"behavior": "allow", "updatedInput": body["input"]}


def assert_ran_bash_once(session: Session, api: FakeAnthropic, command: str) -> None:
    assert session.returncode == 0
    assert session.result["subtype"] == "success"
    assert session.result["is_error"] is False
    assert session.result["result"] == "done"
    assert len(api.message_requests) == 2
    assert api.errors == []
    (hook,) = session.control_requests("hook_callback")
    assert hook["callback_id"] == "hook_0"
    assert hook["input"]["hook_event_name"] == "PreToolUse"
    assert hook["input"]["tool_input"]["command"] == command


def http(api: FakeAnthropic, method: str, path: str, body: JsonObject | None = None) -> bytes:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(api.base_url + path, data=data, method=method)
    with urllib.request.urlopen(request, timeout=10) as response:
        payload: bytes = response.read()
        return payload


def sse_data(stream: bytes) -> list[JsonObject]:
    """The ``data`` objects of a server-sent-event body, checking each matches its event."""
    events = [e.split("\n") for e in stream.decode().strip().split("\n\n")]
    datas = [json.loads(data.removeprefix("data: ")) for _, data in events]
    assert [e.removeprefix("event: ") for e, _ in events] == [d["type"] for d in datas]
    return datas


TOOL_TURN = tool_calls(bash("echo hi"))
CONVERSATION = {"tools": [{"name": "Bash"}], "messages": [{"role": "user", "content": "go"}]}


def test_fake_streams_a_tool_use_as_the_api_does() -> None:
    with FakeAnthropic([TOOL_TURN]) as api:
        datas = sse_data(
            http(api, "POST", "/v1/messages?beta=true", {**CONVERSATION, "stream": True})
        )
    kinds = [d["type"] for d in datas]
    assert kinds[:3] == ["message_start", "ping", "content_block_start"]
    assert kinds[-3:] == ["content_block_stop", "message_delta", "message_stop"]
    start = {"type": "tool_use", "id": "toolu_fake_0001", "name": "Bash", "input": {}}
    assert datas[2]["content_block"] == start
    partial_json = "".join(
        d["delta"]["partial_json"] for d in datas if d["type"] == "content_block_delta"
    )
    assert json.loads(partial_json) == {"command": "echo hi", "description": "Run a command"}
    assert datas[-2]["delta"]["stop_reason"] == "tool_use"
    assert api.message_requests == [{**CONVERSATION, "stream": True}]
    assert api.requests[0].query == "beta=true"


def test_fake_picks_the_turn_by_assistant_messages_and_answers_json() -> None:
    later = {
        **CONVERSATION,
        "messages": [*CONVERSATION["messages"], {"role": "assistant", "content": "x"}],
    }
    with FakeAnthropic([TOOL_TURN, Turn(("a", "b"), "max_tokens")]) as api:
        second = json.loads(http(api, "POST", "/v1/messages", later))
        past_end = json.loads(
            http(api, "POST", "/v1/messages", {**later, "messages": [*later["messages"]] * 2})
        )
        side = json.loads(http(api, "POST", "/v1/messages", {"messages": []}))
    assert second["content"] == [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    assert second["stop_reason"] == "max_tokens"
    assert past_end["content"] == side["content"] == [{"type": "text", "text": "done"}]


def test_fake_answers_other_requests_without_hanging() -> None:
    def broken(request: JsonObject) -> Turn:
        raise ValueError("no such turn")

    with FakeAnthropic(broken) as api:
        assert json.loads(http(api, "POST", "/v1/messages/count_tokens", CONVERSATION)) == {
            "input_tokens": 10
        }
        assert http(api, "GET", "/v1/models") == b"{}"
        assert http(api, "HEAD", "/") == b""
        with pytest.raises(urllib.error.HTTPError) as error:
            http(api, "POST", "/v1/messages", CONVERSATION)
    assert error.value.code == 400
    assert api.errors == ["ValueError('no such turn')"]
    assert [(r.method, r.path) for r in api.requests][1:] == [
        ("GET", "/v1/models"),
        ("HEAD", "/"),
        ("POST", "/v1/messages"),
    ]


@pytest.mark.real_cli
async def test_hook_allow_runs_the_tool_without_asking(claude: Path, tmp_path: Path) -> None:
    made = tmp_path / "made_by_tool"
    answers = {"hook_callback": allow_hook, "can_use_tool": allow_tool}
    with FakeAnthropic(run_tool_then_done([f"touch {made}"])) as api:
        session = await run_session(claude, tmp_path, api, "make the file", answers)
    assert_ran_bash_once(session, api, f"touch {made}")
    assert made.exists()
    assert session.control_requests("can_use_tool") == []
    texts = message_texts(api.message_requests[1], role="user")
    assert any(t.startswith("(Bash completed with no output)") for t in texts)


@pytest.mark.real_cli
async def test_undecided_hook_falls_through_to_can_use_tool(claude: Path, tmp_path: Path) -> None:
    made = tmp_path / "made_by_tool"
    answers = {"hook_callback": context_hook, "can_use_tool": allow_tool}
    with FakeAnthropic(run_tool_then_done([f"touch {made}"])) as api:
        session = await run_session(claude, tmp_path, api, "make the file", answers)
    assert_ran_bash_once(session, api, f"touch {made}")
    assert made.exists()
    (ask,) = session.control_requests("can_use_tool")
    assert ask["tool_name"] == "Bash"
    assert ask["input"]["command"] == f"touch {made}"
    assert ask["tool_use_id"] == "toolu_fake_0001"
    context = "<system-reminder>\nPreToolUse:Bash hook additional context: ctx-from-host\n"
    assert any(t.startswith(context) for t in message_texts(api.message_requests[1]))
    assert not any("ctx-from-host" in t for t in message_texts(api.message_requests[0]))
