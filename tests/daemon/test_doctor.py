"""``hookd doctor`` through the console script: for the project you are in, each agent set up to
call hookd and whether it will, a fix under each failing line that, run, makes it pass; exit 0
only when all is well; ``--json``; every line escaped for the terminal. (Codex's hook trust,
read as the real Codex reads it: tests/agents/real/test_doctor_codex.py.)"""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.daemon.conftest import HOOKS_DIR
from tests.daemon.support import Box, hookd

NOTHING_FIX = "hookd install HOOKS (your hooks module; `hookd new` writes a starter one)"


def doctor(box: Box) -> tuple[int, list[str]]:
    done = hookd(box, "doctor")
    assert done.stderr == "", done.stderr
    return done.returncode, done.stdout.splitlines()


def fails(lines: list[str]) -> list[tuple[str, str]]:
    """Each failing line and the fix under it."""
    return [(line.strip(), lines[n + 1].strip()) for n, line in enumerate(lines)
            if line.startswith("  FAIL  ")]  # fmt: skip


def run_fix(box: Box, fix: str) -> None:
    """Run a fix doctor printed, as the user would (a hookd command line)."""
    words = shlex.split(fix.removeprefix("fix: "))
    assert words[0] == "hookd", fix
    done = hookd(box, *words[1:])
    assert done.returncode == 0, done.stderr


def write_json(path: Path, value: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))


@pytest.mark.req("R-U15")
def test_doctor_checks_claude_code_and_each_fix_works(box: Box, module: Path) -> None:
    status, lines = doctor(box)
    assert (status, lines) == (1, [
        f"hookd doctor: {box.project}: no agent here is set up to call hookd",
        f"        fix: {NOTHING_FIX}",
    ])  # fmt: skip
    assert hookd(box, "install", ".claude/hooks.py").returncode == 0
    status, lines = doctor(box)
    assert status == 0, "\n".join(lines)
    assert lines[:2] == [
        f"hookd doctor: {box.project}",
        "claude: .claude/settings.local.json (local scope) -> .claude/hooks.py",
    ]
    assert [line.split(":")[0].split()[-1] for line in lines[2:-1]] == [
        "installed", "daemon", "token", "enabled",
    ]  # fmt: skip
    assert all(line.startswith("  ok    ") for line in lines[2:-1])
    assert lines[-1] == "hookd doctor: every agent above calls hookd"

    assert hookd(box, "down").returncode == 0
    status, lines = doctor(box)
    assert status == 1
    (daemon,) = fails(lines)
    assert daemon == (
        "FAIL  daemon: not running (a session's first hook starts it; until then none answers)",
        "fix: hookd up .claude/hooks.py",
    )
    run_fix(box, daemon[1])
    assert doctor(box)[0] == 0

    settings = box.project / ".claude" / "settings.local.json"
    token = box.token()
    settings.write_text(settings.read_text().replace(token, "0" * len(token)))
    status, lines = doctor(box)
    ((line, fix),) = fails(lines)
    assert line == (
        "FAIL  token: .claude/settings.local.json carries an older token than the daemon's, "
        "which refuses its hooks"
    )
    run_fix(box, fix)
    assert doctor(box)[0] == 0

    write_json(box.project / ".claude" / "settings.json", {"disableAllHooks": True})
    status, lines = doctor(box)
    assert status == 1
    assert fails(lines) == [(
        "FAIL  enabled: disableAllHooks: true in .claude/settings.json turns every claude hook "
        "off", "fix: remove disableAllHooks from .claude/settings.json",
    )]  # fmt: skip
    local = json.loads(settings.read_text())
    settings.write_text(json.dumps({**local, "disableAllHooks": False}))  # the local file wins
    assert doctor(box)[0] == 0


@pytest.mark.req("R-U15")
def test_doctor_json_and_escapes(box: Box) -> None:
    module = box.project / ".claude" / "guard\x1b[2J\u202e.py"
    module.parent.mkdir(parents=True)
    shutil.copy(HOOKS_DIR / "daemon_guard.py", module)
    try:
        assert hookd(box, "install", str(module)).returncode == 0
        done = hookd(box, "doctor")
        assert done.returncode == 0, done.stdout
        assert "\x1b" not in done.stdout and "\u202e" not in done.stdout
        assert "-> .claude/guard\\x1b[2J\\u202e.py" in done.stdout
        shown = hookd(box, "doctor", "--json")
        assert shown.returncode == 0
        report = json.loads(shown.stdout)
        assert report["project"] == str(box.project) and report["ok"] is True
        (install,) = report["installs"]
        assert install["module"] == ".claude/guard\x1b[2J\u202e.py"
        assert (install["agent"], install["scope"]) == ("claude", "local")
        assert [c["check"] for c in install["checks"]] == [
            "installed",
            "daemon",
            "token",
            "enabled",
        ]
        assert all(c["ok"] and c["fix"] is None for c in install["checks"])
        assert hookd(box, "down").returncode == 0
        down = json.loads(hookd(box, "doctor", "--json").stdout)
        assert down["ok"] is False
        assert (
            down["installs"][0]["checks"][1]["fix"] == f"hookd up {module.relative_to(box.project)}"
        )
    finally:
        hookd(box, "down", "--all")


@pytest.mark.req("R-U17")
def test_doctor_reads_each_agents_own_switches_and_gemini_trust(box: Box, module: Path) -> None:
    done = hookd(box, "install", "--agent", "gemini", "--agent", "copilot", "--agent", "qwen",
                 ".claude/hooks.py")  # fmt: skip
    assert done.returncode == 0, done.stderr
    status, lines = doctor(box)
    assert status == 1
    assert fails(lines) == [(
        f"FAIL  trust: gemini runs project hooks only in a trusted folder, and "
        f"~/.gemini/trustedFolders.json does not trust {box.project}",
        f"fix: trust {box.project} in gemini (it asks when it starts there; or /permissions)",
    )]  # fmt: skip
    write_json(box.home / ".gemini" / "trustedFolders.json", {str(box.project): "TRUST_FOLDER"})
    assert doctor(box)[0] == 0

    gemini = box.project / ".gemini" / "settings.json"
    ours = json.loads(gemini.read_text())
    gemini.write_text(
        "// comments are Gemini's own\n" + json.dumps({**ours, "hooksConfig": {"enabled": False}})
    )
    write_json(box.project / ".github" / "copilot" / "settings.json", {"disableAllHooks": True})
    write_json(box.home / ".qwen" / "settings.json", {"disableAllHooks": True})
    status, lines = doctor(box)
    assert status == 1
    assert fails(lines) == [
        ("FAIL  enabled: hooksConfig.enabled: false in .gemini/settings.json turns every gemini "
         "hook off", "fix: remove hooksConfig.enabled from .gemini/settings.json"),
        ("FAIL  enabled: disableAllHooks: true in .github/copilot/settings.json turns every "
         "copilot hook off", "fix: remove disableAllHooks from .github/copilot/settings.json"),
        ("FAIL  enabled: disableAllHooks: true in ~/.qwen/settings.json turns every qwen hook "
         "off", "fix: remove disableAllHooks from ~/.qwen/settings.json"),
    ]  # fmt: skip
    (agents,) = [json.loads(hookd(box, "doctor", "--json").stdout)]
    assert [(i["agent"], i["ok"]) for i in agents["installs"]] == [
        ("gemini", False), ("copilot", False), ("qwen", False),
    ]  # fmt: skip
    system = box.root / "qwen-system.json"  # a system file overrides the user's
    write_json(system, {"disableAllHooks": False})
    done = hookd(box, "doctor", "--json", env=box.env(QWEN_CODE_SYSTEM_SETTINGS_PATH=str(system)))
    assert [i["ok"] for i in json.loads(done.stdout)["installs"]] == [False, False, True]
