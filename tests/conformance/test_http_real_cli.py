"""The real Claude Code CLI (2.1.330, offline) posting its ``"type": "http"`` hooks to hookd.

Each session runs the CLI in print mode with ``--settings`` holding http hooks pointed at
``hookd serve conformance/hooks/http_real.py --http``, recorded with ``HOOKD_RECORD``; the
test checks what the CLI did, then replays the recording against a fresh server.
``HOOKD_HTTP_TRANSCRIPTS=conformance/transcripts pytest tests/conformance/test_http_real_cli.py``
re-records ``conformance/transcripts/http_*.jsonl``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import trio

from hookd.transcript.format import header_line, load
from hookd.transcript.replay import format_report, replay
from tests.serve.http.client import TOKEN, serve_http
from tests.support.claude_cli import MODEL, cli_env
from tests.support.fake_anthropic import FakeAnthropic, Script, message_texts, run_tool_then_done
from tests.support.stream import StreamMessages

pytestmark = pytest.mark.real_cli

ROOT = Path(__file__).resolve().parents[2]
HOOKS = ROOT / "conformance" / "hooks" / "http_real.py"
EVENTS = (
    "PreToolUse",
    "PostToolUse",
    "PermissionRequest",
    "UserPromptSubmit",
    "Stop",
    "SessionEnd",
)
SESSION_TIMEOUT_S = 120.0
RECORD_DIR_ENV = "HOOKD_HTTP_TRANSCRIPTS"


@dataclass
class Session(StreamMessages):
    messages: list[dict[str, Any]]
    returncode: int
    api: FakeAnthropic
    transcript: Path


def settings(port: int) -> dict[str, Any]:
    """http hooks for every event hookd serves here, with the token as a literal header."""

    def entry(event: str) -> dict[str, Any]:
        hook = {"type": "http", "url": f"http://127.0.0.1:{port}/hook/{event}", "timeout": 10,
                "headers": {"Authorization": f"Bearer {TOKEN}"}}  # fmt: skip
        return {"matcher": "*", "hooks": [hook]}

    return {"hooks": {event: [entry(event)] for event in EVENTS}}


async def run_session(
    claude: Path, tmp_path: Path, script: Script, prompt: str = "do the task"
) -> Session:
    """One print-mode CLI session against the fake API and a recording hookd."""
    record = tmp_path / "session.jsonl"
    work = tmp_path / "work"
    work.mkdir()
    with FakeAnthropic(script) as api:
        async with serve_http(tmp_path, hooks=HOOKS, env={"HOOKD_RECORD": str(record)}) as served:
            settings_file = tmp_path / "settings.json"
            settings_file.write_text(json.dumps(settings(served.port)))
            argv = [str(claude), "-p", prompt, "--output-format", "stream-json", "--verbose",
                    "--settings", str(settings_file), "--model", MODEL,
                    "--permission-mode", "default", "--system-prompt", ""]  # fmt: skip
            with trio.fail_after(SESSION_TIMEOUT_S):
                done = await trio.run_process(
                    argv, env=cli_env(tmp_path / "home", api.base_url), cwd=work,
                    capture_stdout=True, capture_stderr=True, check=False,
                )  # fmt: skip
    messages = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return Session(messages, done.returncode, api, record)


async def assert_replays(session: Session, name: str, what: str, reqs: Sequence[str]) -> None:
    result = await replay(load(session.transcript))
    assert result.ok, format_report(result)
    assert len(result.plan.expected) > 0
    folder = os.environ.get(RECORD_DIR_ENV)
    if folder:
        keep(session.transcript, Path(folder).resolve() / f"http_{name}.jsonl", what, reqs)


def keep(recorded: Path, target: Path, what: str, reqs: Sequence[str]) -> None:
    """Copy a recording into the conformance folder with its header filled in."""
    head, *rest = recorded.read_text().splitlines(keepends=True)
    old = json.loads(head)
    hooks = os.path.relpath(HOOKS, target.parent)
    description = f"Claude Code 2.1.330 posting http hooks to hookd serve --http: {what}."
    line = header_line(mode="http", hooks=hooks, description=description,
                       requirements=list(reqs), serve_args=old.get("serve_args"))  # fmt: skip
    target.write_bytes(line + "".join(rest).encode())


@pytest.mark.req("R-502", "R-504", "R-513")
async def test_the_real_cli_over_http_allow_deny_rewrite_context_failures(
    claude: Path, tmp_path: Path
) -> None:
    commands = ["echo RAN", "rm -rf x", "rewrite CHANGED", "echo context:ABC", "echo raise",
                "echo postfail", "echo hang", "touch permitted.txt", "touch other.txt"]  # fmt: skip
    session = await run_session(claude, tmp_path, run_tool_then_done(commands))
    assert session.returncode == 0
    results = [(r["is_error"], str(r["content"])) for r in session.tool_results()]
    assert results[0] == (False, "RAN")
    assert results[1] == (True, "PreToolUse:Bash hook error: no recursive deletes")
    assert results[2] == (False, "CHANGED")
    assert results[3][0] is False
    assert (
        results[4][0] is True
        and "hookd: hook guard raised an exception: the guard itself broke" in (results[4][1])
    )
    assert results[5] == (False, "postfail")
    assert results[6][0] is True and "hookd: hook guard timed out" in results[6][1]
    assert results[7][0] is False and (tmp_path / "work" / "permitted.txt").exists()
    assert results[8] == (True, "not permitted by hookd")
    assert not (tmp_path / "work" / "other.txt").exists()
    seen = [t for r in session.api.message_requests for t in message_texts(r, role="user")]
    assert any("remember ABC" in t for t in seen)  # additionalContext reached the model
    assert any("answer briefly" in t for t in seen)  # UserPromptSubmit context too
    informational = json.dumps(session.messages)
    assert "hookd: hook after raised an exception: the post hook broke" in informational
    what = ("allow, deny, a rewrite, added context, a raising hook under block, a failing "
            "PostToolUse hook under continue, a hook past its timeout, PermissionRequest "
            "allow and deny")  # fmt: skip
    await assert_replays(session, "session", what, ["R-502", "R-504", "R-506", "R-513"])


@pytest.mark.req("R-502", "R-513")
async def test_the_real_cli_over_http_prompt_blocked(claude: Path, tmp_path: Path) -> None:
    session = await run_session(
        claude, tmp_path, run_tool_then_done(["echo never"]), prompt="a forbidden request"
    )
    assert session.returncode == 0
    (result,) = session.of_type("result")
    assert "that prompt is forbidden here" in result["result"]
    assert session.api.message_requests == []  # the prompt never reached the model
    assert session.tool_results() == []
    await assert_replays(session, "prompt_blocked", "UserPromptSubmit blocks the prompt",
                         ["R-502", "R-513"])  # fmt: skip
