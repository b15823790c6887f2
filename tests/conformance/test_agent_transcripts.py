"""Every recorded agent CLI session, replayed against a real ``hookd serve --http``.

``conformance/transcripts/agents/<agent>.jsonl`` holds what a real agent CLI sent its command
hooks and what the agent shim gave back: a header ``{"hookd_agent_transcript": 1, "agent",
"cli", "module"}`` (``module`` relative to the repository), then one line per hook call
``{"agent_event", "payload", "exit_code", "stdout", "stderr"}``. Each payload is posted, in
order, to ``/agent/<agent>/<agent_event>`` of a daemon serving the header's module; its exit
code (``x-hookd-exit``), its stdout (compared as JSON when it is JSON) and its stderr must be
the recorded ones. The recordings are made by the real-CLI tests under tests/agents/real/.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import trio

from tests.serve.http.client import Reply, serve_http

ROOT = Path(__file__).resolve().parents[2]
TRANSCRIPTS = sorted((ROOT / "conformance" / "transcripts" / "agents").glob("*.jsonl"))
VERSION = 1
REPLAY_TIMEOUT_S = 30.0


def load(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A transcript's header and its calls."""
    header, *calls = (json.loads(line) for line in path.read_text().splitlines() if line.strip())
    assert header.get("hookd_agent_transcript") == VERSION, f"{path.name}: not a transcript"
    assert {"agent", "module"} <= header.keys(), f"{path.name}: header without agent/module"
    assert calls, f"{path.name}: no calls"
    return header, calls


def _stdout(text: str) -> Any:
    """stdout as the agent reads it: parsed when it is JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def answer(reply: Reply) -> dict[str, Any]:
    """What the shim would have given the agent for ``reply``: stdout on exit 0, else stderr."""
    code = int(reply.headers["x-hookd-exit"])
    body = reply.body.decode()
    stdout, stderr = (body, "") if code == 0 else ("", body)
    return {"exit_code": code, "stdout": _stdout(stdout), "stderr": stderr.rstrip("\n")}


def recorded(call: dict[str, Any]) -> dict[str, Any]:
    return {
        "exit_code": call["exit_code"],
        "stdout": _stdout(call["stdout"]),
        "stderr": call["stderr"].rstrip("\n"),
    }


def test_there_are_agent_transcripts() -> None:
    assert TRANSCRIPTS, "conformance/transcripts/agents/ holds no recording"


@pytest.mark.req("R-A23")
@pytest.mark.parametrize("path", TRANSCRIPTS, ids=[p.stem for p in TRANSCRIPTS])
async def test_a_recorded_session_gets_the_same_answers(tmp_path: Path, path: Path) -> None:
    header, calls = load(path)
    async with serve_http(tmp_path, hooks=ROOT / header["module"]) as served:
        client = await served.client()
        with trio.fail_after(REPLAY_TIMEOUT_S):
            for n, call in enumerate(calls, start=1):
                target = f"/agent/{header['agent']}/{call['agent_event']}"
                body = json.dumps(call["payload"]).encode()
                reply = await client.request("POST", target, body)
                assert reply.status == 200, (n, reply)
                assert answer(reply) == recorded(call), f"{path.name} call {n} ({target})"
        await client.aclose()
