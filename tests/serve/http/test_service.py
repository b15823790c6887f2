"""The ``hookd serve --http`` process: its command line, token sources and exits."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from tests.serve.http.client import HOOKS, TOKEN, serve_http
from tests.serve.http.test_transport import decision, pre

HOOKD = str(Path(sys.executable).with_name("hookd"))


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "HOOKD_TOKEN"}
    return {**env, **extra}


@pytest.mark.req("R-501")
@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ([], "--http needs a token: give --token-file FILE or set HOOKD_TOKEN"),
        (["--token-file", "/nonexistent/token"], "--token-file: cannot read /nonexistent/token"),
        (["--token-file", "/dev/null"], "--token-file: /dev/null is empty"),
    ],
)
def test_no_token_refuses_to_start_with_one_line(args: list[str], needle: str) -> None:
    out = subprocess.run(
        [HOOKD, "serve", str(HOOKS), "--http", "0", *args],
        check=False, capture_output=True, text=True, env=_env(), timeout=60,
    )  # fmt: skip
    assert out.returncode == 2
    (line,) = out.stderr.strip().splitlines()
    assert line.startswith(f"hookd serve: error: {needle}")
    assert out.stdout == ""


@pytest.mark.req("R-501")
@pytest.mark.parametrize("address", ["x", "127.0.0.1:99999", "example.com:80", ":"])
def test_a_bad_address_is_one_line(address: str) -> None:
    out = subprocess.run(
        [HOOKD, "serve", str(HOOKS), "--http", address],
        check=False, capture_output=True, text=True, env=_env(HOOKD_TOKEN="t"), timeout=60,
    )  # fmt: skip
    assert out.returncode == 2
    (line,) = out.stderr.strip().splitlines()
    assert line.startswith("hookd serve: error: --http: ")


@pytest.mark.req("R-501")
async def test_the_token_from_the_environment_and_a_port_in_use(tmp_path: Path) -> None:
    async with serve_http(tmp_path, token_file=False) as served:
        client = await served.client()
        assert decision(await client.post("PreToolUse", pre("ls"))) == "allow"
        taken = subprocess.run(
            [HOOKD, "serve", str(HOOKS), "--http", f"127.0.0.1:{served.port}"],
            check=False, capture_output=True, text=True, env=_env(HOOKD_TOKEN=TOKEN), timeout=60,
        )  # fmt: skip
        assert taken.returncode == 1
        (line,) = taken.stderr.strip().splitlines()
        assert line.startswith(f"hookd serve: error: cannot listen on 127.0.0.1:{served.port}: ")


@pytest.mark.req("R-510")
async def test_idle_exit_ends_the_process_with_status_zero(tmp_path: Path) -> None:
    async with serve_http(tmp_path, "--idle-exit", "0.5") as served:
        client = await served.client()
        assert decision(await client.post("PreToolUse", pre("ls"))) == "allow"
        with trio.fail_after(30):
            assert await served.proc.wait() == 0
        assert not served.ready_file.exists()
