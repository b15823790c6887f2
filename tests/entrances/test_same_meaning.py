"""The same failure means the same thing on every entrance.

One hooks module (``tests/hooks/entrances.py``) has a hook per case: it raises,
returns an invalid output, outlives its timeout, cannot take its typed input,
returns None, or returns a full output. Each case goes through every entrance
by its real interface, under fail-closed (``block``) and fail-open
(``continue``):

* ``hook_callback``: bytes on a pipe to ``hookd serve``;
* ``hooks/dispatch``: JSON-RPC on the same pipe;
* ``http``: a POST on a real socket to ``hookd serve --http``;
* ``kit``: :func:`hookd.testing.load` and ``fire_sync``;
* ``host``: ``hookd run`` with a scripted CLI asking one ``hook_callback``.

Each answer is read back into one meaning (decision, reason, context, message,
failure) and must equal the case's expected meaning.
"""

from __future__ import annotations

import functools
import http.client
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from tests.cli.console import HOOKD

ROOT = Path(__file__).resolve().parents[2]
MODULE = str(ROOT / "tests" / "hooks" / "entrances.py")
FAKE_CLI = ROOT / "tests" / "support" / "fake_cli.py"
TOKEN = "entrance-token-0123456789abcdef"

CASES = ["Raises", "Invalid", "Huge", "Slow", "Typed", "Unencodable", "Nothing", "Full"]
ENTRANCES = ["hook_callback", "dispatch", "http", "kit", "host"]
POLICIES = ["block", "continue"]

#: How a failure under ``continue`` reads on each wire, back to its kind.
CODES = {"hook_execution_error": "exception", "hook_timeout": "timeout"}
CODES["invalid_output"] = "invalid_output"
WORDS = {"raised an exception": "exception", "timed out": "timeout"}
WORDS["returned an invalid output"] = "invalid_output"
NOTE = re.compile(r"^hookd: hook (\w+) (raised an exception|timed out|returned an invalid output)")

Meaning = dict[str, Any]


def meaning_of(output: dict[str, Any] | None, failure: tuple[str, str] | None = None) -> Meaning:
    """What an answer means, whatever wire it came on."""
    output = output or {}
    specific = output.get("hookSpecificOutput") or {}
    message = output.get("systemMessage")
    notes = []
    if isinstance(message, str):  # HTTP names failed hooks in the systemMessage
        lines = message.split("\n")
        notes = [line for line in lines if NOTE.match(line)]
        message = "\n".join(line for line in lines if not NOTE.match(line)) or None
    if notes and failure is None:
        matched = NOTE.match(notes[0])
        assert matched is not None
        failure = (WORDS[matched.group(2)], notes[0].split(": ", 2)[2])
    return {
        "decision": specific.get("permissionDecision"),
        "reason": specific.get("permissionDecisionReason"),
        "context": specific.get("additionalContext"),
        "message": message,
        "failure": failure,
    }


# ---------------------------------------------------------------------------- entrances


def _env(policy: str) -> dict[str, str]:
    return {**os.environ, "ENTRANCE_POLICY": policy}


def _input(case: str) -> dict[str, Any]:
    return {
        "session_id": "s-entrance",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": str(ROOT),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": case,
        "tool_input": {"command": "ls"},
        "tool_use_id": "toolu_entrance",
    }


@functools.cache
def stdio(policy: str) -> dict[tuple[str, str], Meaning]:
    """Every case as a ``hook_callback`` and as a ``hooks/dispatch``, on one pipe."""
    lines: list[dict[str, Any]] = [
        {"type": "control_request", "request_id": "init", "request": {"subtype": "initialize"}}
    ]
    for number, case in enumerate(CASES, start=1):
        request: dict[str, Any] = {"subtype": "hook_callback", "callback_id": f"hook_{number}"}
        request |= {"input": _input(case), "tool_use_id": "toolu_entrance"}
        lines.append({"type": "control_request", "request_id": case, "request": request})
        params = {"event": "PreToolUse", "input": _input(case)}
        lines.append({"jsonrpc": "2.0", "id": case, "method": "hooks/dispatch", "params": params})
    proc = subprocess.run(
        [HOOKD, "serve", MODULE],
        input="".join(json.dumps(line) + "\n" for line in lines),
        capture_output=True,
        text=True,
        env=_env(policy),
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    found: dict[tuple[str, str], Meaning] = {}
    for answer in answers:
        if "jsonrpc" in answer:
            result = answer["result"]
            hook = result["hooks"][0]
            failed = hook["outcome"] in CODES.values()
            failure = (hook["outcome"], hook["error"]) if failed else None
            found["dispatch", answer["id"]] = meaning_of(result["output"], failure)
        elif answer["response"]["request_id"] != "init":
            found["hook_callback", answer["response"]["request_id"]] = _control(answer)
    return found


def _control(answer: dict[str, Any]) -> Meaning:
    response = answer["response"]
    if response["subtype"] == "error":
        return meaning_of(None, (CODES[response["error_code"]], response["error"]))
    return meaning_of(response["response"])


class Daemon(NamedTuple):
    port: int
    proc: subprocess.Popen[str]

    def wait_log(self, text: str) -> str:
        """The next stderr line that holds ``text``."""
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            if text in line:
                return line
        raise AssertionError(f"the daemon ended before logging {text!r}")


@contextmanager
def _daemon(policy: str, tmp: Path, module: str = MODULE) -> Iterator[Daemon]:
    token = tmp / "token"
    token.write_text(TOKEN)
    ready = tmp / "ready.json"
    argv = [HOOKD, "serve", module, "--http", "127.0.0.1:0", "--token-file", str(token)]
    argv += ["--ready-file", str(ready), "--log-format", "json"]
    proc = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True, env=_env(policy))
    try:
        assert proc.stderr is not None
        for line in proc.stderr:  # wait for the ready line, not for a time
            if '"http.ready"' in line:
                break
        yield Daemon(int(json.loads(ready.read_text())["port"]), proc)
    finally:
        proc.terminate()
        proc.wait(30)


@functools.cache
def http_answers(policy: str, tmp: Path) -> dict[str, Meaning]:
    found = {}
    with _daemon(policy, tmp) as (port, _):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        for case in CASES:
            headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
            conn.request("POST", "/hook/PreToolUse", json.dumps(_input(case)), headers)
            reply = conn.getresponse()
            assert reply.status == 200, (case, reply.status)
            found[case] = meaning_of(json.loads(reply.read()))
        conn.close()
    return found


def kit(policy: str, case: str, monkeypatch: pytest.MonkeyPatch) -> Meaning:
    import hookd.testing

    monkeypatch.setenv("ENTRANCE_POLICY", policy)
    hooks = hookd.testing.load(MODULE)
    result = hooks.fire_sync("PreToolUse", **{k: v for k, v in _input(case).items() if k != "cwd"})
    (outcome,) = result.hooks
    failed = outcome.outcome in CODES.values()
    return meaning_of(result.output, (outcome.outcome, outcome.error or "") if failed else None)


def host(policy: str, case: str, tmp: Path) -> Meaning:
    log = tmp / f"cli-{policy}-{case}.jsonl"
    log.unlink(missing_ok=True)
    env = {**_env(policy), "FAKE_CLI_LOG": str(log), "FAKE_CLI_TOOL": case}
    argv = [HOOKD, "run", "--hooks", MODULE, "-p", "go", "--", sys.executable, str(FAKE_CLI)]
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    seen = [json.loads(line) for line in log.read_text().splitlines()]
    (answer,) = [
        entry["stdin"]
        for entry in seen
        if entry.get("stdin", {}).get("type") == "control_response"
        and entry["stdin"]["response"].get("request_id", "").startswith("cli_")
    ]
    return _control(answer)


# -------------------------------------------------------------------------- expected


def expected(case: str, policy: str) -> Meaning:
    none: Meaning = {"decision": None, "reason": None, "context": None, "message": None}
    failures = {
        "Raises": ("exception", "boom", "guard_raises raised an exception"),
        "Invalid": ("invalid_output", "", "guard_invalid returned an invalid output"),
        "Huge": ("invalid_output", "the output is 2000020 bytes", "guard_huge returned an invalid"),
        "Slow": ("timeout", "no answer within 0.9s", "guard_slow timed out"),
        "Typed": ("exception", "the input does not convert to Typed", "guard_typed raised"),
        "Unencodable": (
            "invalid_output",
            "output is not JSON-serialisable",
            "guard_unencodable returned an invalid output: output is not JSON-serialisable",
        ),
    }
    if case == "Nothing":
        return {**none, "failure": None}
    if case == "Full":
        return {
            "decision": "deny",
            "reason": "not this one",
            "context": "said to the model",
            "message": "said to the user",
            "failure": None,
        }
    kind, text, words = failures[case]
    if policy == "block":
        return {**none, "decision": "deny", "reason": f"hookd: hook {words}", "failure": None}
    return {**none, "failure": (kind, text)}


def _matches(got: Meaning, want: Meaning) -> bool:
    """Equal, but a reason or a failure text only has to begin as expected."""
    if {k: v for k, v in got.items() if k not in ("reason", "failure")} != {
        k: v for k, v in want.items() if k not in ("reason", "failure")
    }:
        return False
    if (got["reason"] is None) != (want["reason"] is None):
        return False
    if want["reason"] is not None and not got["reason"].startswith(want["reason"]):
        return False
    if (got["failure"] is None) != (want["failure"] is None):
        return False
    if want["failure"] is None:
        return True
    return bool(
        got["failure"][0] == want["failure"][0] and got["failure"][1].startswith(want["failure"][1])
    )


@pytest.fixture(scope="module")
def shared_tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("entrances")


def answer(
    entrance: str, case: str, policy: str, tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> Meaning:
    match entrance:
        case "hook_callback" | "dispatch":
            return stdio(policy)[entrance, case]
        case "http":
            return http_answers(policy, tmp)[case]
        case "kit":
            return kit(policy, case, monkeypatch)
    return host(policy, case, tmp)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("entrance", ENTRANCES)
@pytest.mark.req("R-130")
def test_one_meaning_on_every_entrance(
    entrance: str, case: str, policy: str, shared_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    got = answer(entrance, case, policy, shared_tmp, monkeypatch)
    want = expected(case, policy)
    assert _matches(got, want), f"{entrance} {case} {policy}: got {got}, want {want}"


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("case", ["Raises", "Invalid", "Huge", "Slow", "Typed", "Unencodable"])
@pytest.mark.req("R-130")
def test_every_entrance_gives_the_same_words(
    case: str, policy: str, shared_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not only the same kind: the very same reason or failure text everywhere."""
    seen = {e: answer(e, case, policy, shared_tmp, monkeypatch) for e in ENTRANCES}
    first = seen["hook_callback"]
    assert all(m == first for m in seen.values()), seen


@pytest.mark.parametrize("entrance", ENTRANCES)
@pytest.mark.req("R-133")
def test_an_answer_past_the_output_limit_is_the_hooks_invalid_output(
    entrance: str, shared_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    got = answer(entrance, "Huge", "block", shared_tmp, monkeypatch)
    assert got["decision"] == "deny"
    assert got["reason"].startswith("hookd: hook guard_huge returned an invalid output: the output")
    assert got["reason"].endswith("the limit is 1048576 bytes")
