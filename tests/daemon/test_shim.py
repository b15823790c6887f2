"""``hookd call EVENT``: the command-hook shim, against a recording HTTP server."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.daemon.support import HOOKD, Box, hookd, pose_as_daemon, recording_server

HOOKS = Path(__file__).resolve().parents[1] / "hooks" / "daemon_guard.py"
INPUT = {"session_id": "s1", "hook_event_name": "SessionStart", "source": "startup", "cwd": "/"}
HEAVY = ("trio", "structlog", "jsonschema", "msgspec", "watchfiles", "hookd.core", "hookd.engine")
#: Start-up costs the light path also avoids: typing, the socket wrapper, OpenSSL's hashes,
#: platformdirs (on Linux), shutil, and the parsers of the other commands.
SLOW = ("typing", "socket", "hashlib", "platformdirs", "shutil", "hookd.cli.options")


@pytest.mark.req("R-D20")
def test_call_posts_stdin_and_prints_the_answer(box: Box) -> None:
    with recording_server() as server:
        pose_as_daemon(box, HOOKS, server)
        server.body = b'{"hookSpecificOutput": {"hookEventName": "SessionStart"}}'
        done = hookd(
            box, "call", "SessionStart", "--hooks", str(HOOKS), "--port", str(server.port),
            stdin=json.dumps(INPUT).encode() + b"\n",
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == server.body.decode()
    (req,) = server.requests
    assert req["method"] == "POST" and req["path"] == "/hook/SessionStart"
    assert json.loads(req["body"]) == INPUT
    assert req["headers"]["Authorization"] == f"Bearer {box.token()}"


@pytest.mark.req("R-D21")
@pytest.mark.parametrize(
    ("event", "extra", "code"),
    [("SessionStart", (), 1), ("UserPromptSubmit", (), 2), ("PreToolUse", ("--fail-open",), 1)],
)
def test_a_failed_answer_blocks_only_guarded_events(
    box: Box, event: str, extra: tuple[str, ...], code: int
) -> None:
    with recording_server() as server:
        pose_as_daemon(box, HOOKS, server)
        server.status, server.body = 500, b"broken"
        args = ("call", event, "--hooks", str(HOOKS), "--port", str(server.port), *extra)
        done = hookd(box, *args, stdin=b"{}")
    assert done.returncode == code
    assert done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert "HTTP 500" in line and "broken" in line
    assert ("blocked" in line) == (code == 2)


@pytest.mark.req("R-D20")
def test_token_env_sends_hookd_token(box: Box) -> None:
    with recording_server() as server:
        pose_as_daemon(box, HOOKS, server)
        args = ("call", "Setup", "--hooks", str(HOOKS), "--port", str(server.port), "--token-env")
        done = hookd(box, *args, stdin=b"{}", env=box.env(HOOKD_TOKEN="from-the-env-0123"))
        missing = hookd(box, *args, stdin=b"{}")
    assert done.returncode == 0, done.stderr
    assert server.requests[0]["headers"]["Authorization"] == "Bearer from-the-env-0123"
    assert missing.returncode == 1
    assert missing.stderr.startswith("hookd call: error: HOOKD_TOKEN is not set")


@pytest.mark.req("R-D22")
@pytest.mark.parametrize("command", ["call", "up"])
def test_the_light_commands_import_nothing_heavy(box: Box, command: str) -> None:
    with recording_server() as server:
        pose_as_daemon(box, HOOKS, server)
        if command == "up":  # the recording server stands in for a running daemon
            args = ["up", str(HOOKS), "--port", str(server.port)]
        else:
            args = ["call", "Setup", "--hooks", str(HOOKS), "--port", str(server.port)]
        done = subprocess.run(
            [sys.executable, "-X", "importtime", HOOKD, *args],
            input="{}", capture_output=True, text=True, env=box.env(), timeout=60, check=False,
        )  # fmt: skip
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert "hookd.daemon.client" in imported
    assert sorted(m for m in imported if m.split(".")[0] in HEAVY or m.startswith(HEAVY)) == []


def _imports(box: Box, *args: str, stdin: str = "") -> set[str]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", HOOKD, *args],
        input=stdin, capture_output=True, text=True, env=box.env(), timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return {line.split("|")[-1].strip() for line in done.stderr.splitlines() if "|" in line}


@pytest.mark.req("R-D22")
def test_the_hot_path_avoids_slow_imports(box: Box) -> None:
    """``up`` with the daemon running and ``call`` answered: the path of every prompt."""
    module = box.project / "hooks.py"
    shutil.copy(HOOKS, module)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = str(sock.getsockname()[1])
    started = hookd(box, "up", str(module), "--port", port)
    assert started.returncode == 0, started.stderr
    try:
        up = _imports(box, "up", str(module), "--port", port, "--quiet")
        event = json.dumps({**INPUT, "transcript_path": str(box.root / "t.jsonl")})
        call = _imports(box, "call", "SessionStart", "--hooks", str(module), "--port", port,
                        stdin=event)  # fmt: skip
    finally:
        hookd(box, "down")
    for imported in (up, call):
        assert "hookd.daemon.client" in imported
        assert sorted(m for m in imported if m.startswith((*HEAVY, *SLOW))) == []


@pytest.mark.req("R-D22")
def test_version_imports_no_command(box: Box) -> None:
    imported = _imports(box, "--version")
    assert "hookd.cli.main" in imported
    assert sorted(m for m in imported if m.startswith((*HEAVY, "hookd.daemon", *SLOW))) == []
