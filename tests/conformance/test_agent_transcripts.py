"""Every agent transcript (``conformance/transcripts/agents/*.jsonl``) replayed against a real
daemon: what a real agent CLI sent its command hook, posted to ``/agent/<agent>/<event>`` of
``hookd serve --http`` serving the header's module, is answered as the shim answered then.

A transcript's first line is its header (``hookd_agent_transcript``, ``agent``, ``cli``,
``module``, relative to the repository); each other line one hook call: ``agent_event``,
``payload``, and the shim's ``exit_code``, ``stdout`` and ``stderr``. The shim prints the
daemon's body on stdout with exit 0 and on stderr (one line) otherwise.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.serve.http.client import Reply, serve_http

ROOT = Path(__file__).resolve().parents[2]
TRANSCRIPTS = sorted((ROOT / "conformance" / "transcripts" / "agents").glob("*.jsonl"))


def _load(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    header, *calls = (json.loads(line) for line in path.read_text().splitlines() if line)
    assert header.get("hookd_agent_transcript") == 1, f"{path.name}: not an agent transcript"
    assert calls, f"{path.name}: no hook calls"
    return header, calls


def _as_shim_gave(reply: Reply) -> tuple[int, Any, str]:
    """The exit code, stdout (parsed when JSON) and stderr the shim makes of ``reply``."""
    code = int(reply.headers["x-hookd-exit"])
    text = reply.body.decode()
    if code != 0:
        return code, "", text.removesuffix("\n") + "\n"
    return code, _parsed(text), ""


def _parsed(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def test_there_are_agent_transcripts() -> None:
    expected = {"gemini", "copilot", "qwen", "opencode", "kilo", "pi", "droid", "cline"}
    assert expected <= {p.stem for p in TRANSCRIPTS}


@pytest.mark.req("R-A33")
@pytest.mark.parametrize("path", TRANSCRIPTS, ids=[p.stem for p in TRANSCRIPTS])
async def test_a_real_daemon_answers_as_recorded(tmp_path: Path, path: Path) -> None:
    header, calls = _load(path)
    async with serve_http(tmp_path, hooks=ROOT / header["module"]) as served:
        client = await served.client()
        for n, call in enumerate(calls, start=1):
            target = f"/agent/{header['agent']}/{call['agent_event']}"
            reply = await client.request("POST", target, json.dumps(call["payload"]).encode())
            assert reply.status == 200, (n, reply)
            recorded = (call["exit_code"], _parsed(call["stdout"]), call["stderr"])
            assert _as_shim_gave(reply) == recorded, f"{path.name} call {n}"
