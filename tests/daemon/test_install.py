"""``hookd install`` / ``uninstall`` through the console script: what lands in the settings."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.daemon.support import HOOKD, Box, hookd, read_settings

HOOKS_DIR = Path(__file__).resolve().parents[1] / "hooks"
#: Events routed to the daemon whatever the module holds (hookd/daemon/settings.py).
ROUTED = ("PreToolUse", "PostToolUse", "PermissionRequest", "Stop", "SubagentStop", "SessionEnd")

OTHER = {
    "model": "claude-sonnet-4-5",
    "hooks": {
        "PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "lint.sh"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify.sh"}]}],
    },
    "permissions": {"allow": ["Bash(ls *)"]},
}


def hooks_file(box: Box, name: str = "daemon_guard.py") -> Path:
    target = box.project / ".claude" / "hooks.py"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(HOOKS_DIR / name, target)
    return target


def handlers(settings: dict[str, Any], event: str) -> list[dict[str, Any]]:
    return [h for g in settings["hooks"].get(event, []) for h in g["hooks"]]


def hookd_handlers(settings: dict[str, Any], event: str) -> list[dict[str, Any]]:
    return [h for h in handlers(settings, event) if "hookd=" in h.get("url", h.get("command", ""))]


@pytest.mark.req("R-D01", "R-D02", "R-D03", "R-D05")
def test_local_install_writes_one_http_entry_per_event(box: Box) -> None:
    module = hooks_file(box)
    done = hookd(box, "install", ".claude/hooks.py", "--no-start")
    assert done.returncode == 0, done.stderr
    path = box.project / ".claude" / "settings.local.json"
    settings = read_settings(path)
    token = box.token()
    (pre,) = handlers(settings, "PreToolUse")
    (post,) = handlers(settings, "PostToolUse")
    assert pre["type"] == post["type"] == "http"
    assert pre["url"] != post["url"]
    assert pre["url"].startswith("http://127.0.0.1:") and "/hook/PreToolUse?hookd=" in pre["url"]
    assert "/hook/PostToolUse?hookd=" in post["url"]
    assert pre["headers"] == {"Authorization": f"Bearer {token}"}
    assert "allowedEnvVars" not in pre
    assert pre["timeout"] == post["timeout"] == 31  # the default hook timeout + 1 s
    assert pre["onFailure"] == "block" and "onFailure" not in post
    for event in ROUTED:  # every tool, and events the module has no hook for yet
        (group,) = settings["hooks"][event]
        assert "matcher" not in group and group["hooks"][0]["type"] == "http"
    (shim,) = handlers(settings, "SessionStart")
    assert shim["type"] == "command"
    assert shim["command"].startswith(f"{HOOKD} call SessionStart --hooks {module} --port ")
    (prompt,) = handlers(settings, "UserPromptSubmit")
    assert prompt["command"].startswith(f"{HOOKD} call UserPromptSubmit --hooks {module} --port ")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # it holds the token
    assert stat.S_IMODE(Path(box.daemon_dirs()[0] / "token").stat().st_mode) == 0o600
    assert str(path.relative_to(box.project)) in done.stdout


@pytest.mark.req("R-D03")
def test_an_entry_timeout_covers_the_longest_hook(box: Box) -> None:
    module = hooks_file(box)
    module.write_text(
        "from hookd import HookMatcher\n"
        "async def slow(i, t, c): return None\n"
        "hooks = {'PreToolUse': [HookMatcher(matcher='Bash', hooks=[slow], timeout=44.5)],\n"
        "         'SessionStart': [HookMatcher(hooks=[slow], timeout=40)]}\n"
    )
    assert hookd(box, "install", ".claude/hooks.py", "--no-start").returncode == 0
    settings = read_settings(box.project / ".claude" / "settings.local.json")
    (pre,) = handlers(settings, "PreToolUse")
    (shim,) = handlers(settings, "SessionStart")
    assert pre["timeout"] == 46  # rounded up, + 1 s
    assert shim["timeout"] == 41 + 30  # + the time to start the daemon


@pytest.mark.req("R-D04")
def test_every_on_failure_written_is_a_value_the_cli_accepts(box: Box) -> None:
    hooks_file(box)
    for extra in ((), ("--fail-open",)):
        assert hookd(box, "install", ".claude/hooks.py", "--no-start", *extra).returncode == 0
        settings = read_settings(box.project / ".claude" / "settings.local.json")
        written = [
            h["onFailure"] for g in settings["hooks"].values() for m in g for h in m["hooks"]
            if "onFailure" in h
        ]  # fmt: skip
        assert set(written) <= {"block", "continue"}
        assert written == ([] if extra else ["block", "block"])  # PreToolUse, PermissionRequest
        (prompt,) = handlers(settings, "UserPromptSubmit")
        assert ("--fail-open" in prompt["command"]) == bool(extra)


@pytest.mark.req("R-D06")
def test_install_is_idempotent_and_keeps_other_entries(box: Box) -> None:
    hooks_file(box)
    path = box.project / ".claude" / "settings.local.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(OTHER, indent=2))
    assert hookd(box, "install", ".claude/hooks.py", "--no-start").returncode == 0
    first = path.read_text()
    backup = path.with_name("settings.local.json.hookd.bak")
    assert json.loads(backup.read_text()) == OTHER
    assert hookd(box, "install", ".claude/hooks.py", "--no-start").returncode == 0
    assert path.read_text() == first
    settings = read_settings(path)
    assert settings["model"] == OTHER["model"] and settings["permissions"] == OTHER["permissions"]
    assert handlers(settings, "Stop")[0] == {"type": "command", "command": "notify.sh"}
    pre = handlers(settings, "PreToolUse")
    assert pre[0] == {"type": "command", "command": "lint.sh"} and len(pre) == 2


@pytest.mark.req("R-D07")
def test_uninstall_takes_back_exactly_what_install_added(box: Box) -> None:
    hooks_file(box)
    path = box.project / ".claude" / "settings.local.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(OTHER))
    assert hookd(box, "install", ".claude/hooks.py", "--no-start").returncode == 0
    added = read_settings(path)["hooks"]
    count = sum(len(hookd_handlers({"hooks": added}, event)) for event in added)
    done = hookd(box, "uninstall", ".claude/hooks.py")
    assert done.returncode == 0, done.stderr
    assert read_settings(path) == OTHER
    assert f"removed {count} hookd entries" in done.stdout


@pytest.mark.req("R-D07")
def test_uninstall_removes_a_file_install_created(box: Box) -> None:
    hooks_file(box)
    path = box.project / ".claude" / "settings.local.json"
    assert hookd(box, "install", ".claude/hooks.py", "--no-start").returncode == 0
    assert path.exists()
    assert hookd(box, "uninstall", ".claude/hooks.py").returncode == 0
    assert not path.exists()
    again = hookd(box, "uninstall", ".claude/hooks.py")
    assert again.returncode == 0 and "has no hookd entries" in again.stdout


@pytest.mark.req("R-D08")
def test_user_scope_writes_the_home_settings(box: Box) -> None:
    hooks_file(box)
    done = hookd(box, "install", ".claude/hooks.py", "--scope", "user", "--no-start")
    assert done.returncode == 0, done.stderr
    settings = read_settings(box.home / ".claude" / "settings.json")
    assert len(hookd_handlers(settings, "PreToolUse")) == 1
    assert not (box.project / ".claude" / "settings.local.json").exists()


@pytest.mark.parametrize(
    ("setup", "args", "message"),
    [
        (None, ("install", "missing.py"), "hookd install: error: missing.py: no such file"),
        ("broken", ("install", ".claude/hooks.py"), "settings.local.json: not valid JSON"),
        ("syntax", ("install", ".claude/hooks.py"), "syntax error"),
    ],
)
def test_install_errors_are_one_line(box: Box, setup: str | None, args: tuple[str, ...],
                                     message: str) -> None:  # fmt: skip
    module = hooks_file(box)
    if setup == "broken":
        (box.project / ".claude" / "settings.local.json").write_text("{not json")
    if setup == "syntax":
        module.write_text("def broken(:\n")
    done = hookd(box, *args, "--no-start")
    assert done.returncode == 1
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_the_settings_name_the_console_script_by_absolute_path(box: Box) -> None:
    hooks_file(box)
    assert hookd(box, "install", ".claude/hooks.py", "--no-start").returncode == 0
    settings = read_settings(box.project / ".claude" / "settings.local.json")
    commands = hookd_handlers(settings, "SessionStart") + hookd_handlers(
        settings, "UserPromptSubmit"
    )
    for h in commands:
        assert os.path.isabs(h["command"].split()[0])
