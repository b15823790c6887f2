"""The README's commands, run as written from the installed console script.

Each command is looked up in the README (so the two cannot drift apart) and run
with ``bash`` in a folder holding what a reader would have: the README's own
hooks modules, a settings file, and the repository's examples and transcripts.
Commands that need a Claude Code CLI are run in tests/host.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.cli.console import HOOKD

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()

#: (command as the README writes it, expected exit status, text expected on stdout or stderr)
COMMANDS = [
    ("hookd demo", 0, "hookd exited with code 0"),
    ("hookd check my_hooks.py", 0, "hook_1  PreToolUse"),
    ("hookd check examples/guard.py", 0, "ID      EVENT"),
    ("hookd serve examples/guard.py", 0, ""),
    ("hookd serve hooks.py --settings .claude/settings.json --timeout 10", 0, ""),
    ("hookd serve my_hooks.py --settings .claude/settings.json --settings examples/settings.json",
     0, ""),
    ("hookd schema", 0, "events/PreToolUse.output"),
    ("hookd schema events/PreToolUse.output", 0, '"permissionDecision"'),
    ("""echo '{"decision": "blok"}' | hookd validate --event Stop -""", 1, "'blok' is not one of"),
    ("hookd validate conformance/transcripts/v2.1.330_allow.jsonl", 0, "valid"),
    ("hookd replay conformance/transcripts/v2.1.330_deny.jsonl", 0, "PASS"),
    ("hookd record --out session.jsonl -- hookd serve my_hooks.py", 0, ""),
    ("hookd replay session.jsonl", 0, "PASS session.jsonl"),
    ("""hookd guard 'sudo env X=1 bash -c "rm -fr ~"'""", 2,
     "deny: rm-recursive: `rm -fr ~` (via sudo > env > bash -c)"),
    ("hookd guard 'git push --force-with-lease'", 0, "\nallow\n"),
    ("hookd guard --allow build 'rm -rf build'", 0, "\nallow\n"),
]  # fmt: skip


@pytest.fixture(scope="module")
def reader_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder as a README reader would have it."""
    folder = tmp_path_factory.mktemp("reader")
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    (folder / "hooks.py").write_text(next(b for b in blocks if b.startswith("import hookd")))
    (folder / "my_hooks.py").write_text(next(b for b in blocks if b.startswith("# hooks.py")))
    (folder / ".claude").mkdir()
    shutil.copy(ROOT / "examples" / "settings.json", folder / ".claude" / "settings.json")
    (folder / "examples").symlink_to(ROOT / "examples")
    (folder / "conformance").symlink_to(ROOT / "conformance")
    return folder


@pytest.mark.parametrize(("command", "status", "shows"), COMMANDS, ids=[c[0] for c in COMMANDS])
def test_readme_command(reader_dir: Path, command: str, status: int, shows: str) -> None:
    assert re.search(rf"^\s*{re.escape(command)}(\s+#.*)?$", README, re.M), command
    if command == "hookd replay session.jsonl" and not (reader_dir / "session.jsonl").exists():
        pytest.fail("run after the record command (the order of COMMANDS)")
    env = {**os.environ, "PATH": f"{Path(HOOKD).parent}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.run(
        ["bash", "-c", command],
        input=_session() if command.startswith("hookd record") else "",
        capture_output=True,
        text=True,
        cwd=reader_dir,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == status, proc.stdout + proc.stderr
    assert shows in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr


def _session() -> str:
    """What a CLI would send the recorded `hookd serve my_hooks.py`: a guarded command."""
    request = {
        "type": "control_request",
        "request_id": "r1",
        "request": {
            "subtype": "hook_callback",
            "callback_id": "hook_1",
            "input": {
                "session_id": "s",
                "transcript_path": "/tmp/t.jsonl",
                "cwd": "/tmp",
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": "rm -rf build"},
                "tool_use_id": "t1",
            },
            "tool_use_id": "t1",
        },
    }
    return json.dumps(request) + "\n"
