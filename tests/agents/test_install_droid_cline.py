"""``hookd install --agent droid`` and ``--agent cline`` through the console script, HOME and
the XDG folders in a tmp box; the entries and scripts run as the agents run them (Droid: the
command through ``sh -c``; Cline: ``bash FILE``), with payloads recorded from the real CLIs.

Droid's ``.factory/hooks.json`` is the event map itself; Cline gets one script per event,
``.clinerules/hooks/EVENT.zsh``. The real CLIs: tests/agents/real/test_droid.py and
test_cline.py.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hookd.agents import SHIM
from tests.daemon.support import HOOKD, Box, hookd

HOOKS_DIR = Path(__file__).resolve().parents[1] / "hooks"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
DROID = Path(".factory") / "hooks.json"
CLINE = Path(".clinerules") / "hooks"
#: A user's own Droid file: JSON with comments, a hook of theirs, a setting.
DROID_THEIRS = """\
// my droid hooks
{
  "PreToolUse": [
    {"matcher": "Execute", "hooks": [{"type": "command", "command": "./lint.sh", "timeout": 5}]}
  ],
  "showHookOutput": true /* shown */
}
"""
DENIED = "forbidden by the daemon guard"


@pytest.fixture
def box(tmp_path: Path) -> Box:
    b = Box(tmp_path)
    b.env()
    return b


@pytest.fixture
def module(box: Box) -> Iterator[Path]:
    """``tests/hooks/daemon_guard.py`` (PreToolUse on Bash, PostToolUse, SessionStart) as the
    project's ``.claude/hooks.py``; every daemon of the box stopped at the end."""
    target = box.project / ".claude" / "hooks.py"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(HOOKS_DIR / "daemon_guard.py", target)
    yield target
    hookd(box, "down")


def install(box: Box, *args: str) -> subprocess.CompletedProcess[str]:
    done = hookd(box, "install", *args, ".claude/hooks.py")
    assert done.returncode == 0, done.stderr
    return done


def droid_payload(name: str, command: str | None = None) -> dict[str, Any]:
    payload: dict[str, Any] = json.loads((FIXTURES / "droid" / f"{name}.json").read_text())
    if command is not None:
        payload["tool_input"]["command"] = command
    return payload


def cline_payload(name: str, command: str | None = None) -> dict[str, Any]:
    payload: dict[str, Any] = json.loads((FIXTURES / "cline" / f"{name}.json").read_text())
    if command is not None:
        payload["tool_call"]["input"]["commands"] = [command]
    return payload


def run(argv: list[str], payload: dict[str, Any], env: dict[str, str]) -> Any:
    return subprocess.run(argv, input=json.dumps(payload), capture_output=True, text=True,
                          env=env, timeout=90, check=False)  # fmt: skip


def droid_command(box: Box, event: str) -> str:
    config = json.loads((box.project / DROID).read_text())
    (group,) = [g for g in config[event] if "#hookd=" in json.dumps(g)]
    assert "matcher" not in group  # every tool: the daemon matches
    (handler,) = group["hooks"]
    return str(handler["command"])


def error_lines(done: subprocess.CompletedProcess[str]) -> list[str]:
    assert "Traceback" not in done.stderr
    return [line for line in done.stderr.splitlines() if "error:" in line]


# -- Droid ---------------------------------------------------------------------------------


@pytest.mark.req("R-A60")
def test_droid_gets_the_event_map_at_its_files_root(box: Box, module: Path) -> None:
    done = install(box, "--agent", "droid", "--no-start")
    assert done.stdout.startswith("hookd: .factory/hooks.json: SessionStart, PreToolUse, ")
    path = box.project / DROID
    config = json.loads(path.read_text())
    assert sorted(config) == ["PostToolUse", "PreToolUse", "SessionStart"]  # no "hooks" wrapper
    (state,) = box.daemon_dirs()
    (handler,) = config["PreToolUse"][0]["hooks"]
    assert handler["timeout"] == 61  # seconds: the 5 s hook's budget, +30 to start the daemon
    command = handler["command"]
    assert (
        command.startswith(f"bash {SHIM} ") and f" {state / 'token'} droid/PreToolUse " in command
    )
    assert f" 31 closed {HOOKD} {module} " in command and box.token() not in command
    assert " droid/PostToolUse 31 open " in droid_command(box, "PostToolUse")
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    user = install(box, "--agent", "droid", "--scope", "user", "--no-start")
    assert "~" not in user.stdout and (box.home / DROID).is_file()
    assert sorted(json.loads((box.home / DROID).read_text())) == sorted(config)


@pytest.mark.req("R-A61")
@pytest.mark.parametrize("scope", ["local", "user"])
def test_uninstall_gives_back_the_users_droid_file_byte_for_byte(
    box: Box, module: Path, scope: str
) -> None:
    path = (box.project if scope == "local" else box.home) / DROID
    path.parent.mkdir(parents=True)
    path.write_text(DROID_THEIRS)
    for _ in range(2):  # a second install replaces the first's entries
        install(box, "--agent", "droid", "--scope", scope, "--no-start")
    text = path.read_text()
    assert text.startswith("// my droid hooks\n") and "/* shown */" in text
    first, ours = json.loads(_without_comments(text))["PreToolUse"]
    assert first["hooks"][0]["command"] == "./lint.sh"  # the user's first: hookd's comes after
    assert "#hookd=" in ours["hooks"][0]["command"]
    done = hookd(box, "uninstall", "--agent", "droid", "--scope", scope, ".claude/hooks.py")
    assert done.returncode == 0, done.stderr
    assert "removed 3 hookd entries" in done.stdout and "daemon stopped" in done.stdout
    assert path.read_text() == DROID_THEIRS
    assert sorted(p.name for p in path.parent.iterdir()) == ["hooks.json"]  # no backup left


def _without_comments(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.startswith("//")).replace(
        "/* shown */", ""
    )


@pytest.mark.req("R-A61")
def test_a_droid_file_hookd_made_goes_with_its_folder(box: Box, module: Path) -> None:
    install(box, "--agent", "droid", "--no-start")
    assert hookd(box, "uninstall", "--agent", "droid", ".claude/hooks.py").returncode == 0
    assert not (box.project / ".factory").exists()


@pytest.mark.req("R-A62")
def test_a_droid_file_droid_would_ignore_or_hide_is_refused(box: Box, module: Path) -> None:
    path = box.project / DROID
    path.parent.mkdir(parents=True)
    path.write_text('{"Stop": [{"hooks": [{"type": "command", "command": "./a.sh"}]},],}\n')
    done = hookd(box, "install", "--agent", "droid", ".claude/hooks.py", "--no-start")
    assert done.returncode == 1
    assert error_lines(done) == [
        f"hookd install: error: {path}: a trailing comma, which makes the agent ignore the "
        "whole file; remove it"
    ]
    path.unlink()
    settings = path.with_name("settings.json")
    mine = {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "./b.sh"}]}]}}
    settings.write_text(json.dumps(mine))
    done = hookd(box, "install", "--agent", "droid", ".claude/hooks.py", "--no-start")
    assert done.returncode == 1
    assert error_lines(done) == [
        f"hookd install: error: {settings} has hooks for PreToolUse, which droid no longer runs "
        f"once hooks.json beside it lists that event; move them into {path} (its root is the "
        "event map), then install again"
    ]
    assert not path.exists() and json.loads(settings.read_text()) == mine
    assert box.daemon_dirs() == []


@pytest.mark.req("R-A63")
def test_the_droid_entry_denies_with_exit_2_and_fails_closed(box: Box, module: Path) -> None:
    install(box, "--agent", "droid", "--no-start")  # no daemon: the first call starts it
    command = droid_command(box, "PreToolUse")
    env = box.env()
    denied = run(
        ["sh", "-c", command], droid_payload("pre_tool_use_execute", "echo forbidden"), env
    )
    assert (denied.returncode, denied.stdout, denied.stderr) == (2, "", f"{DENIED}\n")
    allowed = run(["sh", "-c", command], droid_payload("pre_tool_use_execute", "ls"), env)
    assert (allowed.returncode, allowed.stdout, allowed.stderr) == (0, "", "")
    status = json.loads(hookd(box, "status", "--agent", "droid", "--json").stdout)
    assert status[0]["agents"]["droid"]["calls"] == 2
    assert status[0]["configs"] == {str(box.project / DROID): "droid"}
    assert hookd(box, "down").returncode == 0
    module.write_text("def broken(:\n")  # no daemon can start
    failed = run(["sh", "-c", command], droid_payload("pre_tool_use_execute", "ls"), env)
    assert (failed.returncode, failed.stdout) == (2, "")
    (line,) = failed.stderr.splitlines()
    assert line.startswith("hookd: the hookd daemon is not running on 127.0.0.1:")
    assert "and did not start: " in line
    post = run(["sh", "-c", droid_command(box, "PostToolUse")],
               droid_payload("post_tool_use_execute"), env)  # fmt: skip
    assert post.returncode == 1  # blocks nothing: Droid shows the line and goes on


NOTIFYING = """\
from hookd import HookMatcher, deny


async def guard(input_data, tool_use_id, context):
    return deny("no") if "forbidden" in input_data["tool_input"].get("command", "") else None


async def quiet(input_data, tool_use_id, context):
    return None


hooks = {
    "PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard])],
    "UserPromptSubmit": [HookMatcher(hooks=[quiet])],
    "Notification": [HookMatcher(hooks=[quiet])],
    "PermissionRequest": [HookMatcher(hooks=[quiet])],
}
"""


@pytest.mark.req("R-A64")
def test_the_events_an_agent_never_sends_or_never_reads_are_said(box: Box, module: Path) -> None:
    module.write_text(NOTIFYING)
    droid = install(box, "--agent", "droid", "--no-start").stdout.splitlines()
    assert "hookd: droid never sends: PermissionRequest" in droid
    assert "hookd: droid exec sends no UserPromptSubmit (droid's interactive sessions do)" in droid
    cline = install(box, "--agent", "cline", "--no-start").stdout.splitlines()
    assert "hookd: cline never sends: Notification, PermissionRequest" in cline
    assert (
        "hookd: cline runs UserPromptSubmit detached and reads no answer to it: only PreToolUse "
        "and PostToolUse can deny, rewrite or add context"
    ) in cline
    assert sorted(p.name for p in (box.project / CLINE).iterdir()) == [
        "PreToolUse.zsh", "UserPromptSubmit.zsh",
    ]  # fmt: skip


# -- Cline ---------------------------------------------------------------------------------


def cline_script(box: Box, event: str) -> Path:
    return box.project / CLINE / f"{event}.zsh"


@pytest.mark.req("R-A70")
def test_cline_gets_one_bash_script_per_event(box: Box, module: Path) -> None:
    done = install(box, "--agent", "cline", "--no-start")
    first = done.stdout.splitlines()[0]
    assert first.startswith(
        "hookd: .clinerules/hooks: TaskStart.zsh, TaskResume.zsh, PreToolUse.zsh, "
        "PostToolUse.zsh -> hookd-agent.sh, every tool, to the daemon on 127.0.0.1:"
    )
    folder = box.project / CLINE
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["PostToolUse.zsh", "PreToolUse.zsh", "TaskResume.zsh", "TaskStart.zsh"]
    text = cline_script(box, "PreToolUse").read_text()
    assert text.startswith("#!/bin/bash\n")  # Cline runs it with bash, whatever its extension
    (line,) = [x for x in text.splitlines() if not x.startswith("#")]
    assert line.startswith(f"exec bash {SHIM} ") and " cline/PreToolUse 31 cancel " in line
    assert line.endswith(f" #hookd={box.daemon_dirs()[0].name}")
    assert " cline/PostToolUse 31 open " in cline_script(box, "PostToolUse").read_text()
    assert stat.S_IMODE(cline_script(box, "PreToolUse").stat().st_mode) == 0o755
    user = install(box, "--agent", "cline", "--scope", "user", "--no-start")
    assert "hookd: " in user.stdout and (box.home / ".cline" / "hooks" / "TaskStart.zsh").is_file()


@pytest.mark.req("R-A71")
def test_the_cline_script_answers_as_cline_reads_it(box: Box, module: Path) -> None:
    install(box, "--agent", "cline", "--no-start")
    argv, env = ["bash", str(cline_script(box, "PreToolUse"))], box.env()
    denied = run(argv, cline_payload("PreToolUse.run_commands", "echo forbidden"), env)
    assert (denied.returncode, denied.stderr) == (0, "")
    (command,) = json.loads(denied.stdout)["overrideInput"]["commands"]
    printed = subprocess.run(["bash", "-c", command], capture_output=True, text=True, check=False)
    assert (printed.returncode, printed.stderr) == (1, f"hookd denied this command: {DENIED}\n")
    allowed = run(argv, cline_payload("PreToolUse.run_commands", "ls"), env)
    assert (allowed.returncode, json.loads(allowed.stdout or "{}")) == (0, {})
    assert hookd(box, "down").returncode == 0
    module.write_text("def broken(:\n")
    failed = run(argv, cline_payload("PreToolUse.run_commands", "ls"), env)
    assert failed.returncode == 0 and failed.stderr == ""
    answer = json.loads(failed.stdout)  # exit 2 would let Cline run the tool: a cancel
    assert answer["cancel"] is True
    assert answer["errorMessage"].startswith("hookd: the hookd daemon is not running on ")
    assert "and did not start: " in answer["errorMessage"]


@pytest.mark.req("R-A72")
def test_a_users_file_of_hookds_name_is_refused_and_their_others_kept(
    box: Box, module: Path
) -> None:
    folder = box.project / CLINE
    folder.mkdir(parents=True)
    theirs = folder / "PreToolUse.zsh"
    theirs.write_text("#!/bin/bash\necho '{}'\n")
    done = hookd(box, "install", "--agent", "droid", "--agent", "cline", ".claude/hooks.py",
                 "--no-start")  # fmt: skip
    assert done.returncode == 1
    assert error_lines(done) == [
        f"hookd install: error: {theirs}: your own hook file has the name of hookd's; rename it "
        "(Cline runs any PreToolUse.sh, .py, ... beside hookd's), then install again"
    ]
    assert theirs.read_text() == "#!/bin/bash\necho '{}'\n"
    assert not (box.project / ".factory").exists() and box.daemon_dirs() == []  # all or nothing
    theirs.rename(folder / "PreToolUse.py")
    kept = {p.name: p.read_bytes() for p in folder.iterdir()}
    done = install(box, "--agent", "cline", "--no-start")
    assert (
        "hookd: cline also runs .clinerules/hooks/PreToolUse.py, one after the other in the "
        "order of their paths: an overrideInput from one that runs after hookd's replaces "
        "hookd's deny"
    ) in done.stdout.splitlines()
    uninstalled = hookd(box, "uninstall", "--agent", "cline", ".claude/hooks.py")
    assert uninstalled.returncode == 0, uninstalled.stderr
    assert "removed 4 hookd entries from .clinerules/hooks" in uninstalled.stdout
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == kept


@pytest.mark.req("R-A72")
def test_cline_uninstall_removes_only_its_scripts_and_the_folders_it_made(
    box: Box, module: Path
) -> None:
    def files() -> list[Path]:
        found = [*box.project.rglob("*"), *box.home.rglob("*")]
        return sorted(p for p in found if "__pycache__" not in p.parts)

    before = files()
    install(box, "--agent", "cline", "--no-start")
    module.write_text(NOTIFYING)
    install(box, "--agent", "cline", "--no-start")  # again, with other events
    assert not cline_script(box, "TaskStart").exists()  # no SessionStart hook any more
    assert cline_script(box, "UserPromptSubmit").is_file()
    edited = cline_script(box, "PreToolUse")
    edited.write_text("#!/bin/bash\necho mine now\n")  # the user's since: left alone
    done = hookd(box, "uninstall", "--agent", "cline", ".claude/hooks.py")
    assert done.returncode == 0, done.stderr
    assert "removed 1 hookd entries" in done.stdout
    assert sorted(p.name for p in (box.project / CLINE).iterdir()) == ["PreToolUse.zsh"]
    edited.unlink()
    (box.project / CLINE).rmdir()
    (box.project / ".clinerules").rmdir()
    assert files() == before


@pytest.mark.req("R-A72")
def test_a_hooks_folder_git_tracks_keeps_the_users_files_tracked(box: Box, module: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=box.project, check=True)
    folder = box.project / CLINE
    folder.mkdir(parents=True)
    (folder / "PostToolUse.sh").write_text("echo '{}'\n")
    subprocess.run(["git", "add", "."], cwd=box.project, check=True)
    done = install(box, "--agent", "cline", "--no-start")
    assert "git now ignores" in done.stdout
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=box.project, capture_output=True, text=True, check=True,
    )  # fmt: skip
    seen = [line for line in status.stdout.splitlines() if ".clinerules" in line]
    assert seen == ["A  .clinerules/hooks/PostToolUse.sh"]  # hookd's scripts: ignored
    assert hookd(box, "uninstall", "--agent", "cline", ".claude/hooks.py").returncode == 0
    exclude = (box.project / ".git" / "info" / "exclude").read_text()
    assert "hookd" not in exclude


@pytest.mark.req("R-A73")
def test_doctor_and_status_know_droid_and_cline(box: Box, module: Path) -> None:
    install(box, "--agent", "droid", "--agent", "cline")
    done = hookd(box, "doctor")
    assert done.returncode == 0, done.stdout
    lines = done.stdout.splitlines()
    assert "droid: .factory/hooks.json (local scope) -> .claude/hooks.py" in lines
    assert "cline: .clinerules/hooks (local scope) -> .claude/hooks.py" in lines
    assert (
        "  ok    installed: 4 hookd entries in .clinerules/hooks (PostToolUse, PreToolUse, "
        "TaskResume, TaskStart)"
    ) in lines
    status = json.loads(hookd(box, "status", "--agent", "cline", "--json").stdout)
    assert status[0]["configs"] == {str(box.project / CLINE): "cline"}
    settings = box.project / ".factory" / "settings.json"
    settings.write_text('{"hooks": {"hooksDisabled": true}}')
    off = hookd(box, "doctor")
    assert off.returncode == 1
    assert (
        "  FAIL  enabled: hooks.hooksDisabled: true in .factory/settings.json turns every droid "
        "hook off"
    ) in off.stdout.splitlines()


@pytest.mark.req("R-A11")
def test_agent_all_takes_droid_and_cline_when_on_path(box: Box, module: Path) -> None:
    bin_dir = box.root / "bin"
    bin_dir.mkdir()
    for name in ("droid", "cline"):
        (bin_dir / name).write_text("#!/bin/sh\nexit 0\n")
        (bin_dir / name).chmod(0o755)
    env = box.env(PATH=f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin")
    done = hookd(box, "install", "--agent", "all", ".claude/hooks.py", "--no-start", env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "hookd: --agent all: claude, droid, cline"
    assert (box.project / DROID).is_file() and cline_script(box, "PreToolUse").is_file()
    done = hookd(box, "uninstall", "--agent", "all", ".claude/hooks.py", env=env)
    assert done.returncode == 0, done.stderr
    assert not (box.project / ".factory").exists() and not (box.project / ".clinerules").exists()


@pytest.mark.req("R-A73", "R-U13")
def test_an_event_added_after_install_is_named_for_droid_and_cline(box: Box, module: Path) -> None:
    from tests.daemon.test_reload import wait_for_count

    install(box, "--agent", "droid", "--agent", "cline")
    text = module.read_text()
    module.write_text(
        text.replace(
            '    "SessionStart": [',
            '    "Stop": [HookMatcher(hooks=[audit])],\n    "SessionStart": [',
        )
    )
    (state,) = box.daemon_dirs()
    wait_for_count(state / "daemon.log", "reload.done", 1, 30.0)
    (status,) = json.loads(hookd(box, "status", "--json").stdout)
    assert [(u["agent"], u["events"], u["file"]) for u in status["unrouted"]] == [
        ("droid", ["Stop"], str(box.project / DROID)),
        ("cline", ["Stop"], str(box.project / CLINE)),
    ]
    assert status["unrouted"][1]["message"].startswith(
        "cline: Stop (TaskComplete) is in the module but not in .clinerules/hooks: "
    )
    install(box, "--agent", "droid", "--agent", "cline")  # again: routed now
    assert cline_script(box, "TaskComplete").is_file() and "Stop" in json.loads(
        (box.project / DROID).read_text()
    )
    assert json.loads(hookd(box, "status", "--json").stdout)[0]["unrouted"] == []


@pytest.mark.req("R-A72")
def test_a_clinerules_file_of_rules_is_refused_in_one_line(box: Box, module: Path) -> None:
    rules = box.project / ".clinerules"
    rules.write_text("Always run the tests.\n")  # Cline's rules, as one file
    done = hookd(box, "install", "--agent", "cline", ".claude/hooks.py", "--no-start")
    assert done.returncode == 1
    assert error_lines(done) == [
        f"hookd install: error: {rules}: not a folder, where {rules / 'hooks'} would be; move "
        "it away (or install with --scope user)"
    ]
    assert rules.read_text() == "Always run the tests.\n" and box.daemon_dirs() == []
