"""The README's `hookd serve ... --http` command, run as written, then called as the CLI would."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

from tests.cli.console import HOOKD

ROOT = Path(__file__).resolve().parents[3]
README = (ROOT / "README.md").read_text(encoding="utf-8")
TOKEN = "readme-token-0123456789abcdef"


def readme_command() -> str:
    commands: list[str] = re.findall(r"^hookd serve \S+ --http .*$", README, re.M)
    assert len(commands) == 1, commands
    return commands[0]


def test_the_readme_http_command_serves_the_readme_hooks(tmp_path: Path) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    (tmp_path / "hooks.py").write_text(next(b for b in blocks if b.startswith("import hookd")))
    (tmp_path / "token").write_text(TOKEN)
    (tmp_path / "token").chmod(0o600)
    env = {**os.environ, "PATH": f"{Path(HOOKD).parent}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.Popen(
        ["bash", "-c", f"exec {readme_command()}"],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        ready = tmp_path / "ready.json"
        deadline = time.monotonic() + 60
        while not ready.exists():  # written once the server listens
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline, "no ready file within 60 s"
            time.sleep(0.02)
        port = json.loads(ready.read_text())["port"]
        body = {
            "session_id": "s1",
            "transcript_path": "/tmp/t.jsonl",
            "cwd": str(tmp_path),
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "rm -rf /"},
            "tool_use_id": "toolu_1",
        }
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request(
            "POST",
            "/hook/PreToolUse",
            json.dumps(body),
            {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
        )
        answer = conn.getresponse()
        assert answer.status == 200
        output = json.loads(answer.read())["hookSpecificOutput"]
        assert output["permissionDecision"] == "deny"
        assert "recursive delete of /" in output["permissionDecisionReason"]
        conn.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0
    assert out == b""  # the HTTP server writes nothing on stdout
    assert not (tmp_path / "ready.json").exists()  # removed at exit
