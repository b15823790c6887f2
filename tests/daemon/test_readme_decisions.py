"""The README's "Why was this blocked?" and "Rolling out a new rule in shadow", run as written:
the shadow section's hooks module (with the redaction list of the first), and every ``hookd``
command of both sections through the installed console script."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from tests.daemon.support import HOOKD, Box, hookd

README = Path(__file__).resolve().parents[2] / "README.md"
FENCE = re.compile(r"```(\w+)\n(.*?)```", re.DOTALL)
WAIT_S = 30.0


def section(title: str) -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    return text[start : text.index("\n## ", start + 1)]


def blocks(title: str, kind: str) -> list[str]:
    return [body for lang, body in FENCE.findall(section(title)) if lang == kind]


def commands(title: str) -> list[list[str]]:
    return [
        words[1:]
        for body in blocks(title, "sh")
        for line in body.splitlines()
        for words in [shlex.split(line, comments=True)]
        if words and words[0] == "hookd"
    ]


WHY = "Why was this blocked?"
SHADOW = "Rolling out a new rule in shadow"


def post(box: Box, module: Path, command: str) -> dict[str, object]:
    data = {
        "session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
        "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": command}, "tool_use_id": "toolu_1",
    }  # fmt: skip
    done = hookd(box, "call", "PreToolUse", "--hooks", str(module), stdin=json.dumps(data).encode())
    assert done.returncode == 0, done.stderr
    answer: dict[str, object] = json.loads(done.stdout)
    return answer


def wait_for_records(box: Box, module: Path, n: int, *args: str) -> None:
    """Until ``hookd log --follow`` has shown ``n`` records (they are written after the answer)."""
    proc = subprocess.Popen(
        [HOOKD, "log", str(module), "--json", *args, "--follow"], stdout=subprocess.PIPE,
        text=True, cwd=box.project, env=box.env(),
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        for _ in range(n):
            assert proc.stdout.readline(), "hookd log --follow ended"
    finally:
        proc.kill()
        proc.wait(timeout=10)


@pytest.mark.req("R-L04", "R-L08", "R-L09", "R-L10", "R-L11", "R-L12")
def test_every_command_of_the_two_sections_runs(box: Box) -> None:
    (module_text,) = [b for b in blocks(SHADOW, "python")]
    (redact_line,) = [b for b in blocks(WHY, "python")]
    module = box.project / ".claude" / "hooks.py"
    module.parent.mkdir(parents=True)
    module.write_text(module_text + "\n" + redact_line)
    try:
        shadow_commands = commands(SHADOW)
        assert shadow_commands[0] == ["install", ".claude/hooks.py"]
        assert hookd(box, *shadow_commands[0]).returncode == 0
        assert post(box, module, "rm -rf build --password hunter2") != {}
        assert post(box, module, "curl tok_abcdefghijklmnop x") == {}  # a shadow deny
        wait_for_records(box, module, 2)
        for args in commands(WHY):
            if "--follow" in args:
                wait_for_records(box, module, 1, *args[2:-1])
                continue
            done = hookd(box, *args)
            assert done.returncode == 0, (args, done.stderr)
            assert "hunter2" not in done.stdout and "tok_abcdefghijklmnop" not in done.stdout
            if "--why" in args:
                assert "decided by: guard" in done.stdout and "[redacted]" in done.stdout
        whatif = [args for args in shadow_commands if args[0] == "whatif"]
        (box.project / "candidate.py").write_text(
            module_text.replace("@hookd.shadow\n", "") + "\n" + redact_line
        )
        for args in whatif:  # no_network decides in the candidate: the curl call changes
            done = hookd(box, *args)
            assert done.returncode == 3, (args, done.stderr)
            assert "tok_abcdefghijklmnop" not in done.stdout and "hunter2" not in done.stdout
            if "--json" in args:
                assert json.loads(done.stdout.splitlines()[-1])["changes"] == {"none->deny": 1}
            else:
                assert done.stdout.endswith("2 calls replayed, 1 changed: none->deny 1\n")
                assert "now: deny by no_network: no network access" in done.stdout
        for args in shadow_commands[1:]:
            if args[0] == "whatif":
                continue
            done = hookd(box, *args)
            assert done.returncode == 0, (args, done.stderr)
            if args[-1] == "--denied":
                assert " no_network " in done.stdout
            if args[0] == "status":
                assert "shadow decisions: deny 1" in done.stdout
        assert hookd(box, "install", ".claude/hooks.py", "--shadow").returncode == 0
        assert post(box, module, "rm -rf build") == {}  # the whole module in shadow now
        assert hookd(box, "install", ".claude/hooks.py").returncode == 0
        assert post(box, module, "rm -rf build") != {}
    finally:
        hookd(box, "down")
