"""``hookd up``'s fast path: taken when the daemon answers, left whenever it is not sure."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hookd.daemon.where import start_ticks
from tests.daemon.support import HOOKD, Box, hookd, recording_server
from tests.daemon.test_lifecycle import free_ports, ready_file

HOOKS = Path(__file__).resolve().parents[1] / "hooks" / "daemon_guard.py"
#: What the full command imports and the fast path must not.
PARSING = ("argparse", "pathlib", "json", "re")


@pytest.fixture
def module(box: Box) -> Iterator[Path]:
    target = box.project / "hooks.py"
    shutil.copy(HOOKS, target)
    yield target
    hookd(box, "down")


def imports_of(box: Box, *args: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", HOOKD, *args],
        capture_output=True, text=True, env=box.env(), timeout=60, check=False,
    )  # fmt: skip
    lines = done.stderr.splitlines()
    imported = {line.split("|")[-1].strip() for line in lines if line.startswith("import time:")}
    return done, imported


@pytest.mark.req("R-D32", "R-D22")
def test_a_running_daemon_is_confirmed_without_the_parsers(box: Box, module: Path) -> None:
    port = str(free_ports(1)[0])
    started = hookd(box, "up", str(module), "--port", port)
    assert started.returncode == 0, started.stderr
    pid = json.loads(ready_file(box).read_text())["pid"]
    fast, imported = imports_of(box, "up", str(module), "--port", port)
    assert fast.returncode == 0, fast.stderr
    assert "hookd.daemon.fastup" in imported
    assert sorted(m for m in imported if m.split(".")[0] in PARSING) == []
    full, imported = imports_of(box, "up", str(module), f"--port={port}")  # not install's words
    assert "argparse" in imported
    assert (
        fast.stdout
        == full.stdout
        == (f"hookd: already running: pid {pid} on 127.0.0.1:{port} serving {module}\n")
    )
    quiet = hookd(box, "up", "--quiet", str(module), "--port", port, "--idle-exit", "60",
                  "--no-reload")  # fmt: skip
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")


@pytest.mark.req("R-D32", "R-D23")
def test_another_port_goes_to_the_full_command(box: Box, module: Path) -> None:
    first, second = (str(p) for p in free_ports(2))
    assert hookd(box, "up", str(module), "--port", first).returncode == 0
    old = json.loads(ready_file(box).read_text())["pid"]
    moved = hookd(box, "up", str(module), "--port", second)
    assert moved.returncode == 0, moved.stderr
    assert moved.stdout.startswith("hookd: started: pid ") and f"127.0.0.1:{second}" in moved.stdout
    assert json.loads(ready_file(box).read_text())["pid"] != old


@pytest.mark.req("R-D32", "R-D26")
def test_a_stranger_answering_200_on_the_port_is_not_taken_for_the_daemon(
    box: Box, module: Path
) -> None:
    port = str(free_ports(1)[0])
    assert hookd(box, "up", str(module), "--port", port).returncode == 0
    ready = ready_file(box)
    info = json.loads(ready.read_text())
    assert hookd(box, "down").returncode == 0
    with recording_server() as stranger:
        stranger.body = b'{"pid": 1, "ok": true}'
        # the ready file names a live process (this one, R-D65), which the stranger is not
        stale = {**info, "pid": os.getpid(), "start_ticks": start_ticks(os.getpid()),
                 "port": stranger.port}  # fmt: skip
        ready.write_text(json.dumps(stale))
        done = hookd(box, "up", str(module), "--port", str(stranger.port))
    assert [r["path"] for r in stranger.requests][:1] == ["/status"]
    assert done.returncode == 2 and "already running" not in done.stdout
    assert f"port {stranger.port} on 127.0.0.1 is held by another program" in done.stderr


@pytest.mark.req("R-D32")
@pytest.mark.parametrize(
    "words",
    [["--help"], ["HOOKS", "--port", "x"], ["HOOKS", "--port"], ["HOOKS", "--bogus"], ["HOOKS"]],
)
def test_other_words_get_the_full_parser(box: Box, module: Path, words: list[str]) -> None:
    args = [str(module) if w == "HOOKS" else w for w in words]
    done, imported = imports_of(box, "up", *args)
    assert "argparse" in imported
    if words == ["--help"]:
        assert done.returncode == 0 and done.stdout.startswith("usage: hookd up")
    elif words == ["HOOKS"]:  # no --port: the installed or derived one, started by the full path
        assert done.returncode == 0 and "hookd: started: pid " in done.stdout
    else:
        messages = [line for line in done.stderr.splitlines() if not line.startswith("import time")]
        assert done.returncode == 2 and messages[-1].split(": error: ")[0] in ("hookd", "hookd up")


PROMPT = {
    "session_id": "s-fast",
    "transcript_path": "/tmp/t.jsonl",
    "cwd": "/",
    "hook_event_name": "UserPromptSubmit",
    "prompt": "hello",
}


def call_with_imports(
    box: Box, *args: str, stdin: str
) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", HOOKD, "call", *args],
        input=stdin, capture_output=True, text=True, env=box.env(), timeout=60, check=False,
    )  # fmt: skip
    lines = done.stderr.splitlines()
    imported = {line.split("|")[-1].strip() for line in lines if line.startswith("import time:")}
    return done, imported


@pytest.mark.req("R-D62")
def test_the_prompt_shim_is_answered_without_the_parsers(box: Box, module: Path) -> None:
    port = str(free_ports(1)[0])
    assert hookd(box, "up", str(module), "--port", port).returncode == 0
    words = ["UserPromptSubmit", "--hooks", str(module), "--port", port]
    fast, imported = call_with_imports(box, *words, stdin=json.dumps(PROMPT))
    assert fast.returncode == 0, fast.stderr
    assert "hookd.daemon.fastcall" in imported
    assert sorted(m for m in imported if m.split(".")[0] in PARSING) == []
    full, imported = call_with_imports(box, *words[:-2], f"--port={port}", stdin=json.dumps(PROMPT))
    assert "argparse" in imported
    assert fast.stdout == full.stdout == "{}"


@pytest.mark.req("R-D62", "R-D20")
def test_the_prompt_shim_starts_a_stopped_daemon_with_the_same_input(
    box: Box, module: Path
) -> None:
    port = str(free_ports(1)[0])
    assert hookd(box, "up", str(module), "--port", port).returncode == 0
    assert hookd(box, "down").returncode == 0
    words = ["UserPromptSubmit", "--hooks", str(module), "--port", port]
    done, imported = call_with_imports(box, *words, stdin=json.dumps(PROMPT))
    assert done.returncode == 0, done.stderr
    assert "hookd.daemon.fastcall" in imported and "argparse" in imported  # then the full path
    assert done.stdout == "{}"
    status = json.loads(hookd(box, "status", "--json").stdout)
    assert status[0]["requests"] == 1  # posted once, to the daemon it started
