"""Recording an HTTP session (``HOOKD_RECORD``) and replaying it with ``hookd replay``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from tests.serve.http.client import TOKEN, Client, serve_http
from tests.serve.http.test_transport import post, pre

HOOKD = str(Path(sys.executable).with_name("hookd"))

pytestmark = pytest.mark.req("R-513")


async def record_session(tmp_path: Path) -> Path:
    out = tmp_path / "session-{pid}.jsonl"
    async with serve_http(tmp_path, env={"HOOKD_RECORD": str(out)}) as served:
        first, second = await served.client(), await served.client()
        assert (await first.post("PreToolUse", pre("ls"))).status == 200
        assert (await second.post("PreToolUse", pre("rm -rf /"))).status == 200
        assert (await first.post("PreToolUse", pre("count", session="r"))).status == 200
        assert (await first.post("PostToolUse", post("raise it"))).status == 200
        assert (await second.post("PreToolUse", pre("count", session="r"))).status == 200
        refused = await (await served.client()).post("PreToolUse", pre("ls"), token="wrong")
        assert refused.status == 401
        bad = await (await served.client()).request("POST", "/hook/PreToolUse", b"{oops")
        assert bad.status == 400
        pid = served.proc.pid
    return tmp_path / f"session-{pid}.jsonl"


def replay(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [HOOKD, "replay", str(path)], capture_output=True, text=True, timeout=120, check=False
    )


async def test_a_recorded_http_session_replays_green_and_a_changed_answer_fails(
    tmp_path: Path,
) -> None:
    path = await record_session(tmp_path)
    text = path.read_text()
    assert TOKEN not in text  # headers are never recorded
    header, *entries = [json.loads(line) for line in text.splitlines()]
    assert header["mode"] == "http" and header["hooks"].endswith("http_guard.py")
    assert "--token-file" not in header.get("serve_args", [])
    assert [(e["dir"], e["conn"]) for e in entries[:4]] == [
        ("cli->hookd", 1), ("hookd->cli", 1), ("cli->hookd", 2), ("hookd->cli", 2),
    ]  # fmt: skip
    assert entries[0]["http"] == {"method": "POST", "target": "/hook/PreToolUse"}
    assert entries[1]["http"] == {"status": 200}
    statuses = [e["http"].get("status") for e in entries if e["dir"] == "hookd->cli"]
    assert statuses == [200, 200, 200, 200, 200, 400]  # the 401 was not recorded
    assert entries[-2]["raw"] == "{oops"
    green = replay(path)
    assert green.returncode == 0, green.stdout + green.stderr
    assert f"PASS {path}: 6/6 answers match, 6 requests sent over HTTP" in green.stdout
    changed = text.replace('"no rm"', '"no rm at all"')
    broken = tmp_path / "broken.jsonl"
    broken.write_text(changed)
    red = replay(broken)
    assert red.returncode == 1
    assert 'permissionDecisionReason: recorded "no rm at all", got "no rm"' in (red.stdout)


async def test_hookd_record_records_an_http_server_through_the_environment(
    tmp_path: Path,
) -> None:
    out = tmp_path / "rec.jsonl"
    (tmp_path / "token").write_text(TOKEN)
    ready = tmp_path / "ready.json"
    argv = [HOOKD, "record", "--out", str(out), "--", HOOKD, "serve",
            "tests/hooks/http_guard.py", "--http", "127.0.0.1:0", "--token-file",
            str(tmp_path / "token"), "--ready-file", str(ready), "--idle-exit", "1"]  # fmt: skip
    proc = await trio.lowlevel.open_process(argv, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    seen = b""
    with trio.fail_after(60):
        while b'"http.ready"' not in seen:
            chunk = await proc.stderr.receive_some(65536)
            assert chunk, seen.decode()
            seen += chunk
        client = await Client.connect(json.loads(ready.read_text())["port"])
        assert (await client.post("PreToolUse", pre("rm x"))).status == 200
        await client.aclose()
        assert await proc.wait() == 0  # --idle-exit ended the server, and the recorder
    assert json.loads(out.read_text().splitlines()[0])["mode"] == "http"
    assert replay(out).returncode == 0


def _json(obj: dict[str, str]) -> bytes:
    return json.dumps(obj).encode()


@pytest.mark.req("R-D63")
async def test_a_recording_asked_for_takes_only_the_session_it_binds(tmp_path: Path) -> None:
    out = tmp_path / "one-session.jsonl"
    async with serve_http(tmp_path) as served:
        client = await served.client()
        bad = [
            await client.request("POST", "/record/start", _json({"id": "r1", "out": "rel.jsonl"})),
            await client.request("POST", "/record/start", b"{oops"),
            await client.request("POST", "/record/stop", _json({"id": "nope"})),
        ]
        assert [r.status for r in bad[:2]] == [400, 400] and bad[2].status == 404
        client = await served.client()
        refused = await client.request("POST", "/record/start", b"{}", token="wrong")
        assert refused.status == 401
        client = await served.client()
        started = await client.request(
            "POST", "/record/start", _json({"id": "r1", "out": str(out)})
        )
        assert started.status == 200, started.body
        assert (await client.post("PreToolUse", pre("ls", session="before"))).status == 200
        bind = [("X-Hookd-Record", "r1")]
        assert (
            await client.post("PreToolUse", pre("ls", session="mine"), headers=bind)
        ).status == 200
        assert (await client.post("PreToolUse", pre("ls", session="other"))).status == 200
        assert (await client.post("PreToolUse", pre("rm -rf /", session="mine"))).status == 200
        stopped = await client.request("POST", "/record/stop", _json({"id": "r1"}))
        assert stopped.status == 200 and stopped.json()["requests"] == 2
        assert (await client.post("PreToolUse", pre("ls", session="mine"))).status == 200
    header, *entries = [json.loads(line) for line in out.read_text().splitlines()]
    assert header["mode"] == "http"
    sent = [e["msg"]["tool_input"]["command"] for e in entries if e["dir"] == "cli->hookd"]
    assert sent == ["ls", "rm -rf /"]
    assert {e["msg"]["session_id"] for e in entries if e["dir"] == "cli->hookd"} == {"mine"}
    assert replay(out).returncode == 0
