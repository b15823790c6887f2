"""``hookd doctor`` reads Codex's hook trust as the real Codex CLI does (``@openai/codex``,
pinned, offline): hookd's hooks not approved are a failing line, and Codex indeed runs the
guarded command unguarded; once ``[hooks.state."KEY"] trusted_hash`` holds the hash Codex
itself gives each hook (its app server's ``hooks/list``, what ``/hooks`` writes), doctor
passes, and Codex runs the hooks without ``--dangerously-bypass-hook-trust``: the guarded
command is denied. Codex's ``[features] hooks = false`` is a failing line too."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.agents.real.test_codex import (
    BLOCKED,
    CODEX_TIMEOUT_S,
    CONTEXT,
    DENIED,
    CodexRun,
    _configure,
    guard_daemon,
)
from tests.daemon.support import Box, hookd
from tests.support.agent_clis import agent_cli
from tests.support.fake_responses import FakeResponses, shell_then_done

pytestmark = pytest.mark.real_cli

#: The user's own Codex hook, before hookd's: hookd's PreToolUse entry is in group 1.
THEIRS = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "command": "true", "timeout": 5}]}]}}  # fmt: skip


def hooks_list(box: Box, home: Path) -> list[dict[str, Any]]:
    """What Codex's app server lists for the project: each hook, its key, hash and trust."""
    proc = subprocess.Popen(
        [str(agent_cli("codex")), "app-server"], cwd=box.project, text=True,
        env=box.env(CODEX_HOME=str(home)), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    lines: queue.Queue[str] = queue.Queue()
    out = proc.stdout

    def read() -> None:
        for line in out:
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    asked = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"clientInfo": {"name": "hookd-tests", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "hooks/list",
         "params": {"cwds": [str(box.project)]}},
    ]  # fmt: skip
    try:
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in asked))
        proc.stdin.flush()
        while True:
            answer = json.loads(lines.get(timeout=CODEX_TIMEOUT_S))
            if answer.get("id") == 2:
                (listed,) = answer["result"]["data"]
                hooks: list[dict[str, Any]] = listed["hooks"]
                return hooks
    finally:
        proc.kill()
        proc.wait(timeout=10)


def run_trusting(box: Box, commands: list[str], extra: str) -> CodexRun:
    """``codex exec`` without ``--dangerously-bypass-hook-trust``: the hooks run only as far as
    ``config.toml`` (the fake provider, the trusted project, then ``extra``) trusts them."""
    with FakeResponses(shell_then_done(commands)) as fake:
        home = _configure(box, fake.base_url)
        with (home / "config.toml").open("a") as f:
            f.write(extra)
        argv = [str(agent_cli("codex")), "exec", "--dangerously-bypass-approvals-and-sandbox",
                "--skip-git-repo-check", "--json", "tidy up"]  # fmt: skip
        proc = subprocess.run(
            argv, cwd=box.project, env=box.env(CODEX_HOME=str(home), FAKE_KEY="fake-key"),
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=CODEX_TIMEOUT_S,
            check=False,
        )  # fmt: skip
    assert fake.errors == [], fake.errors
    return CodexRun(proc, fake)


def doctor(box: Box) -> tuple[int, list[str]]:
    done = hookd(box, "doctor")
    assert done.stderr == ""
    return done.returncode, [line.strip() for line in done.stdout.splitlines()]


@pytest.mark.req("R-U15", "R-U16")
def test_doctor_reads_codex_hook_trust_as_codex_does(tmp_path: Path) -> None:
    with guard_daemon(tmp_path, user_hooks=THEIRS) as g:
        box = g.box
        home = _configure(box, "http://127.0.0.1:9/v1")  # the project trusted, no hook yet
        status, lines = doctor(box)
        assert status == 1
        assert (
            "FAIL  trust: 2 of hookd's 2 codex hooks are not approved (PreToolUse, "
            "UserPromptSubmit): codex skips them without a word"
        ) in lines
        approve = (
            "fix: approve them with /hooks in codex (codex exec: --dangerously-bypass-hook-trust)"
        )
        assert approve in lines

        unguarded = run_trusting(box, [f"command rm -rf {g.victim}"], "")
        assert not g.victim.exists(), unguarded.explain()  # doctor was right: no hook ran
        assert CONTEXT not in unguarded.developer_texts()

        g.victim.mkdir()
        (g.victim / "keep.txt").write_text("precious\n")
        ours = [h for h in hooks_list(box, home) if "#hookd=" in h["command"]]
        assert {h["trustStatus"] for h in ours} == {"untrusted"}
        assert f"{box.project / '.codex' / 'hooks.json'}:pre_tool_use:1:0" in {
            h["key"] for h in ours
        }
        trusted = "".join(
            f'\n[hooks.state."{h["key"]}"]\ntrusted_hash = "{h["currentHash"]}"\n' for h in ours
        )
        with (home / "config.toml").open("a") as f:
            f.write(trusted)
        status, lines = doctor(box)
        assert status == 0, "\n".join(lines)
        assert "ok    trust: codex trusts hookd's hooks as they are" in lines

        guarded = run_trusting(box, [f"command rm -rf {g.victim}"], trusted)
        assert (g.victim / "keep.txt").exists(), guarded.explain()
        assert guarded.outputs()[0].startswith(f"{BLOCKED}{DENIED}. "), guarded.explain()
        assert {h["trustStatus"] for h in hooks_list(box, home) if "#hookd=" in h["command"]} == {
            "trusted"
        }

        with (home / "config.toml").open("a") as f:
            f.write("\n[features]\nhooks = false\n")
        status, lines = doctor(box)
        assert status == 1
        assert (
            "FAIL  enabled: hooks = false in ~/.codex/config.toml turns every codex hook off"
        ) in lines
        assert "fix: remove features.hooks from ~/.codex/config.toml" in lines
