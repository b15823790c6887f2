"""``hookd serve --http`` against other local programs: the proof of the key, failed
authentications, short tokens, non-loopback addresses, a log that stays bounded."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from tests.serve.http.client import HOOKS, TOKEN, Client, serve_http
from tests.serve.http.test_transport import pre

HOOKD = str(Path(sys.executable).with_name("hookd"))
NONCE = "0123456789abcdef0123456789abcdef"


def _env(**extra: str) -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items() if k != "HOOKD_TOKEN"}, **extra}


def expected_proof(key: bytes, nonce: str, pid: int, port: int) -> str:
    message = f"hookd-proof\n{nonce}\n{pid}\n{port}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


@pytest.mark.req("R-540")
async def test_a_challenge_is_answered_with_the_proof(tmp_path: Path) -> None:
    key = os.urandom(32).hex().encode()
    (tmp_path / "proof.key").write_bytes(key + b"\n")
    async with serve_http(tmp_path, "--proof-key-file", str(tmp_path / "proof.key")) as served:
        pid, port = served.ready["pid"], served.port
        challenge = [("X-Hookd-Challenge", NONCE)]
        status = await (await served.client()).request("GET", "/status", headers=challenge)
        hook = await (await served.client()).post("PreToolUse", pre("ls"), headers=challenge)
        plain = await (await served.client()).request("GET", "/status")
        bad = await (await served.client()).request(
            "GET", "/status", token="wrong-token-0123456789", headers=challenge
        )
    assert status.status == 200 and hook.status == 200
    for reply in (status, hook):
        assert reply.headers["x-hookd-proof"] == expected_proof(key, NONCE, pid, port)
    assert "x-hookd-proof" not in plain.headers
    assert bad.status == 401 and "x-hookd-proof" not in bad.headers


@pytest.mark.req("R-540")
@pytest.mark.req("R-D63")
async def test_the_record_routes_pass_the_gate_and_carry_the_proof(tmp_path: Path) -> None:
    key = os.urandom(32).hex().encode()
    (tmp_path / "proof.key").write_bytes(key + b"\n")
    out = tmp_path / "session.jsonl"
    start = json.dumps({"id": "rec1", "out": str(out)}).encode()
    stop = json.dumps({"id": "rec1"}).encode()
    challenge = [("X-Hookd-Challenge", NONCE)]
    async with serve_http(tmp_path, "--proof-key-file", str(tmp_path / "proof.key")) as served:
        pid, port = served.ready["pid"], served.port
        refused = await (await served.client()).request(
            "POST", "/record/start", start, token="wrong-token-0123456789", headers=challenge
        )
        started = await (await served.client()).request(
            "POST", "/record/start", start, headers=challenge
        )
        stopped = await (await served.client()).request(
            "POST", "/record/stop", stop, headers=challenge
        )
    assert refused.status == 401 and "x-hookd-proof" not in refused.headers
    assert started.status == 200 and stopped.status == 200
    for reply in (started, stopped):
        assert reply.headers["x-hookd-proof"] == expected_proof(key, NONCE, pid, port)
    assert json.loads(stopped.body)["requests"] == 0 and out.exists()


@pytest.mark.req("R-540")
async def test_without_a_key_file_no_proof_is_given(tmp_path: Path) -> None:
    async with serve_http(tmp_path) as served:
        client = await served.client()
        reply = await client.request("GET", "/status", headers=[("X-Hookd-Challenge", NONCE)])
    assert reply.status == 200 and "x-hookd-proof" not in reply.headers


@pytest.mark.req("R-541")
async def test_a_failed_authentication_is_logged_and_slowed_alone(tmp_path: Path) -> None:
    wrong = "wrong-token-do-not-log-0123"
    async with serve_http(tmp_path) as served:
        bad, good = await served.client(), await served.client()
        order: list[str] = []

        async def refused() -> None:
            started = trio.current_time()
            reply = await bad.request("GET", "/status", token=wrong)
            assert reply.status == 401
            assert trio.current_time() - started >= 0.2
            order.append("401")

        async with trio.open_nursery() as nursery:
            nursery.start_soon(refused)
            await trio.sleep(0)
            reply = await good.post("PreToolUse", pre("ls"))
            assert reply.status == 200
            order.append("200")
        line = await served.wait_line("http.auth_failed")
    assert order == ["200", "401"]  # the valid caller did not wait for the refused one
    assert wrong not in "\n".join(served.stderr) and TOKEN not in line


@pytest.mark.req("R-501")
def test_a_short_hookd_token_is_one_line() -> None:
    out = subprocess.run(
        [HOOKD, "serve", str(HOOKS), "--http", "127.0.0.1:0"],
        check=False, capture_output=True, text=True, env=_env(HOOKD_TOKEN="short"), timeout=60,
    )  # fmt: skip
    assert out.returncode == 2
    (line,) = out.stderr.splitlines()
    assert line.startswith("hookd serve: error: $HOOKD_TOKEN: the token has 5 characters")


@pytest.mark.req("R-542")
@pytest.mark.parametrize(("host", "warned"), [("0.0.0.0", True), ("127.0.0.1", False)])
def test_a_non_loopback_address_is_warned_about(host: str, warned: bool) -> None:
    out = subprocess.run(
        [HOOKD, "serve", str(HOOKS), "--http", f"{host}:0", "--idle-exit", "0.1",
         "--log-level", "error"],
        check=False, capture_output=True, text=True, env=_env(HOOKD_TOKEN=TOKEN), timeout=60,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    warnings = [line for line in out.stderr.splitlines() if "warning" in line]
    if warned:
        assert warnings == [
            "hookd serve: warning: listening on 0.0.0.0, not a loopback address: other "
            "machines can reach this port (only the token keeps them out)"
        ]
    else:
        assert warnings == []


@pytest.mark.req("R-543")
async def test_the_log_file_is_rotated_while_running(tmp_path: Path) -> None:
    log = tmp_path / "daemon.log"
    ready = tmp_path / "ready.json"
    (tmp_path / "token").write_text(TOKEN)
    argv = [HOOKD, "serve", str(HOOKS), "--http", "127.0.0.1:0", "--token-file",
            str(tmp_path / "token"), "--ready-file", str(ready), "--log-format", "json",
            "--log-max-bytes", "4000"]  # fmt: skip
    with log.open("ab") as out:
        proc = await trio.lowlevel.open_process(argv, stdout=out, stderr=out, env=_env())
    try:
        with trio.fail_after(30):
            while not ready.exists():  # the daemon writes it once it listens
                await trio.sleep(0.05)
            client = await Client.connect(json.loads(ready.read_text())["port"])
            while not log.with_suffix(".log.1").exists():  # each request logs one line
                assert (await client.post("PreToolUse", pre("ls"))).status == 200
            assert (await client.post("PreToolUse", pre("echo after"))).status == 200
    finally:
        proc.terminate()
        with trio.CancelScope(shield=True):
            await proc.wait()
    rotated, current = log.with_suffix(".log.1").read_text(), log.read_text()
    assert "http.ready" in rotated and rotated.count("request.completed") >= 5
    assert "http.ready" not in current and "log.rotated" in current
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
