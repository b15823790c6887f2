"""``hookd record`` and ``hookd replay`` from the console script, as the README shows them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.cli.console import HOOKD, answers, hookd, lines, module, one_line_error
from tests.peer import hook_request, pre_tool_use

GUARD = """
    from hookd import HookMatcher, deny

    async def guard(input_data, tool_use_id, context):
        if "rm -rf" in input_data["tool_input"].get("command", ""):
            return deny("no recursive deletes")
        return None

    hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard], timeout=10)]}
"""

SESSION = lines(
    hook_request("r1", "hook_1", pre_tool_use("Bash", tool_input={"command": "rm -rf build"})),
    hook_request("r2", "hook_1", pre_tool_use("Bash", tool_input={"command": "ls"})),
)

#: ``hookd`` on PATH, as after an install: the README's commands name it bare.
ON_PATH = {"PATH": f"{Path(HOOKD).parent}{os.pathsep}{os.environ.get('PATH', '')}"}


def test_record_then_replay_what_it_wrote(tmp_path: Path) -> None:
    """README: `hookd record --out session.jsonl -- hookd serve my_hooks.py`, then replay it."""
    module(tmp_path / "my_hooks.py", GUARD)
    rec = hookd(
        "record", "--out", "session.jsonl", "--", "hookd", "serve", "my_hooks.py",
        stdin=SESSION, cwd=tmp_path, env=ON_PATH,
    )  # fmt: skip
    assert rec.returncode == 0, rec.stderr
    got = answers(rec.stdout)  # the proxy passes the answers through unchanged
    assert got["r1"]["response"]["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert got["r2"]["response"] == {}
    recorded = [json.loads(x) for x in (tmp_path / "session.jsonl").read_text().splitlines()]
    assert recorded[0]["hooks"] == "my_hooks.py"
    assert [e["dir"] for e in recorded[1:]].count("cli->hookd") == 2

    replay = hookd("replay", "session.jsonl", cwd=tmp_path, env=ON_PATH)
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert replay.stdout.startswith("PASS session.jsonl: 2/2 answers match")

    module(tmp_path / "my_hooks.py", GUARD.replace("no recursive deletes", "changed"))
    changed = hookd("replay", "session.jsonl", cwd=tmp_path, env=ON_PATH)
    assert changed.returncode == 1
    assert changed.stdout.startswith("FAIL session.jsonl: 1/2 answers match")


def test_record_refuses_an_unwritable_out(tmp_path: Path) -> None:
    module(tmp_path / "my_hooks.py", GUARD)
    proc = hookd(
        "record", "--out", str(tmp_path / "missing" / "s.jsonl"), "--",
        "hookd", "serve", "my_hooks.py", cwd=tmp_path, env=ON_PATH,
    )  # fmt: skip
    assert "is not a writable folder" in one_line_error(proc, "record")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (SESSION, "s.jsonl:1: a protocol message, not a transcript line"),
        ("", "no recorded exchange"),
        ('{"hookd_transcript": 1, "hooks": "my_hooks.py"}\n', "no recorded exchange"),
    ],
    ids=["raw-protocol-lines", "empty", "header-only"],
)
def test_replay_refuses_a_file_that_is_no_transcript(
    tmp_path: Path, content: str, message: str
) -> None:
    module(tmp_path / "my_hooks.py", GUARD)
    (tmp_path / "s.jsonl").write_text(content)
    for extra in ([], ["--hooks", "my_hooks.py"]):
        proc = hookd("replay", "s.jsonl", *extra, cwd=tmp_path)
        assert proc.returncode == 2
        assert message in one_line_error(proc, "replay")
        assert "PASS" not in proc.stdout


def test_an_unwritable_hookd_record_serves_anyway_with_a_warning(tmp_path: Path) -> None:
    hooks = module(tmp_path / "my_hooks.py", GUARD)
    target = str(tmp_path / "missing" / "s.jsonl")
    proc = hookd("serve", hooks, stdin=SESSION, env={"HOOKD_RECORD": target})
    assert proc.returncode == 0, proc.stderr
    assert answers(proc.stdout)["r1"]["response"]["hookSpecificOutput"]["permissionDecision"] == (
        "deny"
    )
    assert "Traceback" not in proc.stderr
    assert f"cannot record: {target}: No such file or directory" in proc.stderr
    assert "serving without recording" in proc.stderr


INITIALIZE = {"type": "control_request", "request_id": "init", "request": {"subtype": "initialize"}}

ADDED_ABOVE = GUARD.replace(
    'hooks = {"PreToolUse": [',
    "async def edits(input_data, tool_use_id, context):\n"
    "        return None\n\n"
    '    hooks = {"PreToolUse": [HookMatcher(matcher="Edit", hooks=[edits]), ',
)


def test_replay_matches_callbacks_by_event_and_matcher(tmp_path: Path) -> None:
    """A hook added above the recorded one does not shift the ids; a changed one is named."""
    module(tmp_path / "my_hooks.py", GUARD)
    rec = hookd(
        "record", "--out", "session.jsonl", "--", "hookd", "serve", "my_hooks.py",
        stdin=lines(INITIALIZE) + SESSION, cwd=tmp_path, env=ON_PATH,
    )  # fmt: skip
    assert rec.returncode == 0, rec.stderr

    module(tmp_path / "my_hooks.py", ADDED_ABOVE)
    assert "hook_2  PreToolUse  Bash" in hookd("check", "my_hooks.py", cwd=tmp_path).stdout
    added = hookd("replay", "session.jsonl", cwd=tmp_path, env=ON_PATH)
    assert added.returncode == 0, added.stdout
    assert added.stdout.startswith("PASS session.jsonl: 3/3 answers match")
    assert "note: hook_1 (PreToolUse Edit) is new: the recording never registered it" in (
        added.stdout
    )

    module(tmp_path / "my_hooks.py", ADDED_ABOVE.replace("timeout=10", "timeout=5"))
    changed = hookd("replay", "session.jsonl", cwd=tmp_path, env=ON_PATH)
    assert changed.returncode == 1
    assert (
        "error: registration changed: hook_1 (PreToolUse Bash), now hook_2: timeout 10 -> 5"
    ) in changed.stdout
    assert "hook_event_name" not in changed.stdout  # no confusing event mismatch
