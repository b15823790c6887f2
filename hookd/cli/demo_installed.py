"""``hookd demo``'s second act: the path most users take, ``hookd install`` and the daemon.

In a scratch project (and a scratch home, so nothing of the user's is touched) the guard is
installed as ``hookd install`` installs it; then the calls Claude Code would make go to the
daemon exactly as the written settings tell the CLI to make them (the http hook's URL and
headers), and the answers are shown; the daemon is stopped and the install undone at the end.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from hookd.decision.meaning import headline

__all__ = ["play_installed"]

#: (what the agent is doing, the tool input)
CALLS = [
    ("Bash: pytest -q", {"command": "pytest -q"}),
    ("Bash: rm -rf /", {"command": "rm -rf /"}),
]
_STEP_TIMEOUT_S = 60


def play_installed(guard: Path, hookd: list[str]) -> bool:
    """Install ``guard`` in a scratch project with ``hookd``, play two calls; True if all went."""
    print("\nhookd demo: the installed path, as `hookd install` sets it up for Claude Code\n")
    with tempfile.TemporaryDirectory(prefix="hookd-demo-") as tmp:
        root = Path(tmp)
        project, home = root / "project", root / "home"
        (project / ".claude").mkdir(parents=True)
        home.mkdir()
        shutil.copy(guard, project / ".claude" / "hooks.py")
        env = {**os.environ, "HOME": str(home)}
        for name in ("XDG_STATE_HOME", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "HOOKD_RECORD"):
            env.pop(name, None)

        def run(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                [*hookd, *args], cwd=project, env=env, capture_output=True, text=True,
                timeout=_STEP_TIMEOUT_S, check=False,
            )  # fmt: skip

        done = run("install", ".claude/hooks.py")
        _show("$ hookd install .claude/hooks.py", done)
        if done.returncode != 0:
            return False
        try:
            return _play(project / ".claude" / "settings.local.json")
        finally:
            _show("$ hookd uninstall .claude/hooks.py", run("uninstall", ".claude/hooks.py"))


def _show(command: str, done: subprocess.CompletedProcess[str]) -> None:
    print(command)
    for line in (done.stdout + done.stderr).splitlines():
        print(f"  {line}")


def _play(settings: Path) -> bool:
    """POST each call as the http hook in ``settings`` tells Claude Code to."""
    entry = _pre_tool_use_entry(json.loads(settings.read_text()))
    if entry is None:
        print("the settings hold no http PreToolUse hook")
        return False
    headers = {k: v for k, v in (entry.get("headers") or {}).items() if isinstance(v, str)}
    print(f"\n{settings.name}: PreToolUse -> POST {entry['url'].split('?')[0]}")
    print("  (headers: " + ", ".join(f"{k}: <{len(v)} chars>" for k, v in headers.items()) + ")\n")
    for doing, tool_input in CALLS:
        body = {
            "session_id": "demo-installed", "transcript_path": "/tmp/demo.jsonl", "cwd": "/tmp",
            "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": tool_input, "tool_use_id": f"toolu_demo_{doing[-4:]}",
        }  # fmt: skip
        request = urllib.request.Request(
            entry["url"], data=json.dumps(body).encode(),
            headers={**headers, "Content-Type": "application/json"},
        )  # fmt: skip
        started = time.perf_counter()
        try:
            with urllib.request.urlopen(request, timeout=_STEP_TIMEOUT_S) as reply:
                answer = json.loads(reply.read() or b"{}")
        except (urllib.error.URLError, OSError, ValueError) as exc:
            print(f"PreToolUse        {doing:<32} the daemon did not answer: {exc}")
            return False
        ms = (time.perf_counter() - started) * 1000
        print(f"PreToolUse        {doing:<32} daemon  {_decision(answer):<58} {ms:6.1f} ms")
    return True


def _pre_tool_use_entry(settings: dict[str, Any]) -> dict[str, Any] | None:
    for group in settings.get("hooks", {}).get("PreToolUse", []):
        for entry in group.get("hooks", []):
            if entry.get("type") == "http":
                return dict(entry)
    return None


def _decision(answer: dict[str, Any]) -> str:
    return headline(answer)
