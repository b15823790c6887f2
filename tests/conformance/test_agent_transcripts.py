"""Every recording of a real agent CLI's hook calls replays green against a real daemon.

``conformance/transcripts/agents/*.jsonl``: a header line naming the agent, the CLI and the
hooks module it ran, then one line per hook call: the payload the CLI wrote on the hook's
stdin, and the exit code, stdout and stderr the shim gave back. Each payload is posted to
``/agent/<agent>/<agent_event>`` of a daemon serving the header's module (``hookd up``, a
private home), and the answer must be the recorded one: the ``x-hookd-exit`` header and, as the
body, stdout (exit 0; compared as JSON when it is JSON) or stderr's line (any other exit).
"""

from __future__ import annotations

import http.client
import json
from pathlib import Path
from typing import Any

import pytest

from tests.agents.test_shim import free_port
from tests.daemon.support import Box, hookd

ROOT = Path(__file__).resolve().parents[2]
RECORDINGS = sorted((ROOT / "conformance" / "transcripts" / "agents").glob("*.jsonl"))
REQUEST_TIMEOUT_S = 30.0

JsonObject = dict[str, Any]


def read(path: Path) -> tuple[JsonObject, list[JsonObject]]:
    header, *calls = (json.loads(line) for line in path.read_text().splitlines() if line)
    assert header.get("hookd_agent_transcript") == 1, f"{path.name}: not an agent transcript"
    return header, calls


def text(out: str) -> Any:
    """A recorded or answered output, as JSON when it is JSON."""
    try:
        return json.loads(out)
    except ValueError:
        return out


def post(port: int, token: str, target: str, payload: JsonObject) -> tuple[int, str]:
    """The daemon's exit code and body for one payload."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=REQUEST_TIMEOUT_S)
    try:
        body = json.dumps(payload).encode()
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        conn.request("POST", f"/agent/{target}", body, headers)
        reply = conn.getresponse()
        answer = reply.read().decode()
        assert reply.status == 200, f"{target}: status {reply.status}: {answer}"
        return int(reply.headers["x-hookd-exit"]), answer
    finally:
        conn.close()


def test_the_recordings_are_there() -> None:
    assert {"copilot.jsonl", "qwen.jsonl"} <= {p.name for p in RECORDINGS}


@pytest.mark.req("R-A42")
@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.stem)
def test_the_daemon_gives_each_recorded_answer(path: Path, tmp_path: Path) -> None:
    header, calls = read(path)
    assert calls, f"{path.name}: no hook call recorded"
    box, port = Box(tmp_path), free_port()
    up = hookd(box, "up", str(ROOT / header["module"]), "--port", str(port))
    assert up.returncode == 0, up.stderr
    try:
        for n, call in enumerate(calls, 1):
            target = f"{header['agent']}/{call['agent_event']}"
            code, answer = post(port, box.token(), target, call["payload"])
            expected = call["stdout"] if call["exit_code"] == 0 else call["stderr"].rstrip("\n")
            assert (code, text(answer)) == (call["exit_code"], text(expected)), f"call {n}"
    finally:
        hookd(box, "down")
