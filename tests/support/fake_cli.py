"""A scripted stand-in for the CLI, for ``hookd run`` tests that need no real binary.

Run as ``python fake_cli.py [flags...]``. It records its argv and every stdin
line in ``$FAKE_CLI_LOG`` (JSON lines), then:

* answers ``initialize`` with success (``$FAKE_CLI_INIT=ok``, default), an error
  (``error``) or not at all (``silent``); after a success, prints ``system/init``;
* for each user message: reports ``running``, asks the first registered hook
  (the first whose matcher is ``$FAKE_CLI_TOOL``, when set) about a call of that
  tool (default Bash), prints an assistant message quoting the answer, a
  ``result`` and ``idle``;
* at EOF on stdin, exits with ``$FAKE_CLI_EXIT`` (default 0).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

JsonObject = dict[str, Any]


def log(entry: JsonObject) -> None:
    with open(os.environ["FAKE_CLI_LOG"], "a") as f:
        f.write(json.dumps(entry) + "\n")


def say(message: JsonObject) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


QUEUED: list[JsonObject] = []  # lines read while waiting for an answer


def read() -> JsonObject | None:
    if QUEUED:
        return QUEUED.pop(0)
    line = sys.stdin.readline()
    if not line:
        return None
    message: JsonObject = json.loads(line)
    log({"stdin": message})
    return message


def read_answer() -> JsonObject | None:
    """The next control_response; other lines wait their turn."""
    while (line := sys.stdin.readline()) != "":
        message: JsonObject = json.loads(line)
        log({"stdin": message})
        if message.get("type") == "control_response":
            return message
        QUEUED.append(message)
    return None


def state(name: str) -> None:
    say(
        {"type": "system", "subtype": "session_state_changed", "state": name, "sdk_host_only": True}
    )


def initialize(message: JsonObject) -> list[str]:
    mode = os.environ.get("FAKE_CLI_INIT", "ok")
    request_id = message["request_id"]
    if mode == "ok":
        response = {"subtype": "success", "request_id": request_id, "response": {"pid": 1}}
        say({"type": "control_response", "response": response})
        say({"type": "system", "subtype": "init", "session_id": "fake-session"})
    elif mode == "error":
        response = {"subtype": "error", "request_id": request_id, "error": "fake refusal"}
        say({"type": "control_response", "response": response})
    hooks = message["request"].get("hooks") or {}
    tool = os.environ.get("FAKE_CLI_TOOL")
    return [
        i
        for matchers in hooks.values()
        for m in matchers
        if tool is None or m.get("matcher") == tool
        for i in m["hookCallbackIds"]
    ]


def hook_input(command: str) -> JsonObject:
    return {
        "session_id": "fake-session",
        "transcript_path": "/tmp/fake.jsonl",
        "cwd": os.getcwd(),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": os.environ.get("FAKE_CLI_TOOL", "Bash"),
        "tool_input": {"command": command},
        "tool_use_id": "toolu_fake",
    }


def turn(prompt: str, callback_ids: list[str], number: int) -> None:
    state("running")
    answer: Any = None
    if callback_ids:
        body = {
            "subtype": "hook_callback",
            "callback_id": callback_ids[0],
            "input": hook_input(f"echo {prompt}"),
            "tool_use_id": "toolu_fake",
        }
        say({"type": "control_request", "request_id": f"cli_{number}", "request": body})
        reply = read_answer()
        answer = reply["response"] if reply else None
    content = [{"type": "text", "text": json.dumps(answer)}]
    say({"type": "assistant", "message": {"role": "assistant", "content": content}})
    say({"type": "result", "subtype": "success", "is_error": False, "result": prompt})
    state("idle")


def main() -> int:
    log({"argv": sys.argv[1:]})
    callback_ids: list[str] = []
    turns = 0
    while (message := read()) is not None:
        request = message.get("request") or {}
        if message.get("type") == "control_request" and request.get("subtype") == "initialize":
            callback_ids = initialize(message)
        elif message.get("type") == "user":
            turns += 1
            turn(str(message["message"]["content"]), callback_ids, turns)
    return int(os.environ.get("FAKE_CLI_EXIT", "0"))


if __name__ == "__main__":
    sys.exit(main())
