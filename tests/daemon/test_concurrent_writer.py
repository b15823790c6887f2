"""No lost update: another program rewrites the settings file while the daemon restarts.

Claude Code rewrites its settings when the user clicks "always allow", and every start of
the daemon rewrites the same file with a new token. A writer process adds a permission rule
every few milliseconds and drops the one it added ``WINDOW`` rules before: it reads the
file, waits 2 ms (a CLI writing back what it read a moment before), changes it, and writes
it in place as Node's ``writeFileSync`` does (Gemini CLI, Qwen Code; the file stays the
size of a real one), while the test restarts the daemon 30 times through the console
script. After each start the writer is paused (it says so once its write in progress is
done) and the file is read: the rules it last wrote are all there, none it dropped is back,
and every hookd handler carries the daemon's current token. (``rename`` instead of
``in-place`` makes it save as editors do, a new file renamed over the old one: see SPEC
R-F08 for what that measures.)
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.daemon.support import Box, hookd

RESTARTS = 30
WINDOW = 20
#: Adds rule-N to permissions.allow and drops rule-(N-WINDOW), every few ms; "pause" on
#: stdin: answers "paused N" once no write is in progress, then waits for "resume" or "stop".
WRITER = r"""
import json, os, select, sys, time
path, how, n = sys.argv[1], sys.argv[2], 0
while True:
    if select.select([sys.stdin], [], [], 0)[0]:
        line = sys.stdin.readline().strip()
        if line == "pause":
            print("paused", n, flush=True)
            if sys.stdin.readline().strip() != "resume":
                break
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        value = json.loads(text)
    except ValueError:
        continue  # never: hookd replaces the file whole
    time.sleep(0.002)  # the user clicks "always allow": it writes back what it read then
    allow = value.setdefault("permissions", {}).setdefault("allow", [])
    allow.append(f"Bash(rule-{n})")
    if f"Bash(rule-{n - 20})" in allow:
        allow.remove(f"Bash(rule-{n - 20})")
    data = json.dumps(value, indent=2) + "\n"  # then truncate and write, as Node does
    with open(path if how == "in-place" else path + ".new", "w", encoding="utf-8") as f:
        f.write(data)
    if how == "rename":
        os.replace(path + ".new", path)
    n += 1
    time.sleep(0.003)
"""


@pytest.fixture
def writer(box: Box, module: Path) -> Iterator[tuple[Path, subprocess.Popen[str]]]:
    settings = box.project / ".claude" / "settings.local.json"
    settings.write_text(json.dumps({"permissions": {"allow": ["Read"]}}, indent=2) + "\n")
    done = hookd(box, "install", str(module))
    assert done.returncode == 0, done.stderr
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(settings), "in-place"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        yield settings, proc
    finally:
        proc.kill()
        proc.wait(timeout=10)


def pause(proc: subprocess.Popen[str]) -> int:
    """Pause the writer; how many rules it has written."""
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("pause\n")
    proc.stdin.flush()
    word, count = proc.stdout.readline().split()
    assert word == "paused"
    return int(count)


def resume(proc: subprocess.Popen[str]) -> None:
    assert proc.stdin is not None
    proc.stdin.write("resume\n")
    proc.stdin.flush()


def tokens_in(settings: dict[str, object]) -> set[str]:
    hooks = settings.get("hooks")
    assert isinstance(hooks, dict)
    return {
        h["headers"]["Authorization"].removeprefix("Bearer ")
        for groups in hooks.values() for g in groups for h in g["hooks"]
        if h.get("type") == "http" and "hookd=" in h.get("url", "")
    }  # fmt: skip


@pytest.mark.req("R-F08", "R-F09")
def test_restarts_beside_a_writer_lose_no_rule_and_leave_no_stale_token(
    box: Box, module: Path, writer: tuple[Path, subprocess.Popen[str]]
) -> None:
    settings, proc = writer
    stale, lost = 0, set[str]()
    for _ in range(RESTARTS):
        assert hookd(box, "down", str(module)).returncode == 0
        up = hookd(box, "up", str(module))
        assert up.returncode == 0, up.stderr
        written = pause(proc)
        value = json.loads(settings.read_text())
        allow = value["permissions"]["allow"]
        kept = {f"Bash(rule-{n})" for n in range(max(written - WINDOW, 0), written)}
        lost |= kept - set(allow)  # a rule it added, gone
        lost |= {a for a in allow if a.startswith("Bash(rule-")} - kept  # one it dropped, back
        stale += tokens_in(value) != {box.token()}
        resume(proc)
    print(f"\n{RESTARTS} restarts: {stale} left a stale token, {len(lost)} rules lost")
    assert (stale, sorted(lost)) == (0, [])
    assert written > RESTARTS  # the writer did write meanwhile
