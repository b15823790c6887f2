"""``hookd install --agent``: each agent CLI's own hook file, through the console script, with
HOME and the XDG directories in a tmp box; the entries run as written with ``bash -c``."""

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
from hookd.install.agent_files import AGENT_CONFIGS
from tests.daemon.support import HOOKD, Box, hookd, read_settings

HOOKS_DIR = Path(__file__).resolve().parents[1] / "hooks"
#: The agents whose hook file takes hookd's entries (hookd's plugins: test_install_plugins.py;
#: Droid's file, its root the event map, and Cline's scripts: test_install_droid_cline.py).
OTHER_AGENTS = tuple(
    a for a, config in AGENT_CONFIGS.items() if config.kind == "entries" and not config.root
)
FILES = {
    "codex": Path(".codex") / "hooks.json",
    "gemini": Path(".gemini") / "settings.json",
    "copilot": Path(".github") / "hooks" / "hookd.json",
    "qwen": Path(".qwen") / "settings.json",
}
USER_FILES = {
    "codex": Path(".codex") / "hooks.json",
    "gemini": Path(".gemini") / "settings.json",
    "copilot": Path(".copilot") / "hooks" / "hookd.json",
    "qwen": Path(".qwen") / "settings.json",
}
#: A user's own file: other settings and a hook of their own, in the agent's shape.
THEIRS: dict[str, dict[str, Any]] = {
    "codex": {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "./lint.sh", "timeout": 5}]}]}},
    "gemini": {"security": {"auth": {"selectedType": "gemini-api-key"}}, "hooks": {"BeforeTool": [
        {"matcher": "write_file", "hooks": [{"type": "command", "command": "./check.sh"}]}]}},
    "copilot": {"version": 1, "hooks": {"preToolUse": [
        {"type": "command", "bash": "./audit.sh", "timeoutSec": 10}]}},
    "qwen": {"$version": 4, "model": {"name": "qwen3-coder"}},
}  # fmt: skip
#: Gemini's payload of a shell call (the entries are run with it as the agent would).
GEMINI_CALL = {
    "session_id": "s1", "transcript_path": "", "cwd": "/tmp", "hook_event_name": "BeforeTool",
    "timestamp": "2025-01-01T00:00:00Z", "tool_name": "run_shell_command",
    "tool_input": {"command": "echo forbidden"},
}  # fmt: skip


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


def handlers(config: dict[str, Any], event: str) -> list[dict[str, Any]]:
    items = config["hooks"][event]
    return [h for g in items for h in g.get("hooks", [g])]


def ours(config: dict[str, Any], event: str) -> dict[str, Any]:
    (found,) = [h for h in handlers(config, event) if "#hookd=" in str(h)]
    return found


def run_entry(command: str, payload: dict[str, Any], env: dict[str, str]) -> Any:
    """The entry's command as the agent runs it: through a shell, the payload on stdin."""
    return subprocess.run(
        ["bash", "-c", command], input=json.dumps(payload), capture_output=True, text=True,
        env=env, timeout=60, check=False,
    )  # fmt: skip


@pytest.mark.req("R-A09")
def test_each_agent_gets_its_own_file_and_shape(box: Box, module: Path) -> None:
    for agent in OTHER_AGENTS:
        done = hookd(box, "install", "--agent", agent, ".claude/hooks.py", "--no-start")
        assert done.returncode == 0, done.stderr
    (state,) = box.daemon_dirs()
    token_file = state / "token"
    configs = {a: read_settings(box.project / FILES[a]) for a in OTHER_AGENTS}
    assert sorted(configs["codex"]["hooks"]) == ["PostToolUse", "PreToolUse", "SessionStart"]
    assert sorted(configs["gemini"]["hooks"]) == ["AfterTool", "BeforeTool", "SessionStart"]
    assert sorted(configs["copilot"]["hooks"]) == ["postToolUse", "preToolUse", "sessionStart"]
    assert configs["copilot"]["version"] == 1
    assert sorted(configs["qwen"]["hooks"]) == ["PostToolUse", "PreToolUse", "SessionStart"]
    names = {"codex": "PreToolUse", "gemini": "BeforeTool", "copilot": "preToolUse",
             "qwen": "PreToolUse"}  # fmt: skip
    pre = {a: ours(c, names[a]) for a, c in configs.items()}
    assert pre["codex"]["timeout"] == pre["qwen"]["timeout"] == 61  # 5 s hook, default 30, +1, +30
    assert pre["gemini"]["timeout"] == 61_000  # milliseconds
    assert pre["copilot"]["timeoutSec"] == 61 and "command" not in pre["copilot"]
    for agent, config in configs.items():
        for groups in config["hooks"].values():
            assert all("matcher" not in g for g in groups)  # every tool: the daemon matches
        command = pre[agent].get("command") or pre[agent]["bash"]
        assert command.startswith(f"bash {SHIM} ")
        assert f" {token_file} {agent}/" in command and box.token() not in command
        assert f" 31 closed {HOOKD} {module} " in command  # the daemon's deadline
        ready = command.split(f" {module} ")[1].split(" #hookd=")[0]
        assert ready.endswith(".json") and "/hookd/" in ready  # the daemon's ready file
        path = box.project / FILES[agent]
        assert stat.S_IMODE(path.stat().st_mode) == 0o644
    post = ours(configs["gemini"], "AfterTool")["command"]
    assert " gemini/AfterTool 31 open " in post  # PostToolUse blocks nothing
    assert " copilot/postToolUse 31 pass " in ours(configs["copilot"], "postToolUse")["bash"]


@pytest.mark.req("R-A10")
@pytest.mark.parametrize("agent", OTHER_AGENTS)
@pytest.mark.parametrize("scope", ["local", "user"])
def test_uninstall_restores_the_users_file(box: Box, module: Path, agent: str, scope: str) -> None:
    path = (box.project / FILES[agent]) if scope == "local" else (box.home / USER_FILES[agent])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(THEIRS[agent]))
    for _ in range(2):  # a second install replaces the first's entries
        done = hookd(box, "install", "--agent", agent, "--scope", scope, ".claude/hooks.py",
                     "--no-start")  # fmt: skip
        assert done.returncode == 0, done.stderr
    config = read_settings(path)
    assert (
        sum("#hookd=" in json.dumps(h) for e in config["hooks"] for h in handlers(config, e)) == 3
    )
    assert json.loads(path.with_name(path.name + ".hookd.bak").read_text()) == THEIRS[agent]
    done = hookd(box, "uninstall", "--agent", agent, "--scope", scope, ".claude/hooks.py")
    assert done.returncode == 0, done.stderr
    assert "removed 3 hookd entries" in done.stdout and "daemon stopped" in done.stdout
    assert read_settings(path) == THEIRS[agent]
    assert not path.with_name(path.name + ".hookd.bak").exists()
    assert box.daemon_dirs() == []


@pytest.mark.req("R-A10")
@pytest.mark.parametrize("agent", OTHER_AGENTS)
def test_a_file_hookd_created_goes_with_its_folders(box: Box, module: Path, agent: str) -> None:
    def files() -> list[Path]:
        found = [*box.project.rglob("*"), *box.home.rglob("*")]
        return sorted(p for p in found if "__pycache__" not in p.parts)

    before = files()
    done = hookd(box, "install", "--agent", agent, ".claude/hooks.py", "--no-start")
    assert done.returncode == 0, done.stderr
    assert (box.project / FILES[agent]).is_file()
    assert hookd(box, "uninstall", "--agent", agent, ".claude/hooks.py").returncode == 0
    assert files() == before


@pytest.mark.req("R-A11")
def test_agent_all_picks_the_agents_on_path(box: Box, module: Path) -> None:
    bin_dir = box.root / "bin"
    bin_dir.mkdir()
    for name in ("codex", "qwen"):
        (bin_dir / name).write_text("#!/bin/sh\nexit 0\n")
        (bin_dir / name).chmod(0o755)
    env = box.env(PATH=f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin")
    done = hookd(box, "install", "--agent", "all", ".claude/hooks.py", "--no-start", env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "hookd: --agent all: claude, codex, qwen"
    assert (box.project / ".claude" / "settings.local.json").is_file()
    assert [a for a in OTHER_AGENTS if (box.project / FILES[a]).exists()] == ["codex", "qwen"]
    both = hookd(box, "install", "--agent", "gemini", "--agent", "copilot", ".claude/hooks.py",
                 "--no-start", env=env)  # fmt: skip
    assert both.returncode == 0, both.stderr
    assert all((box.project / FILES[a]).exists() for a in OTHER_AGENTS)
    done = hookd(box, "uninstall", "--agent", "all", ".claude/hooks.py", env=env)
    assert done.returncode == 0, done.stderr
    assert not any((box.project / FILES[a]).exists() for a in OTHER_AGENTS)
    assert not (box.project / ".claude" / "settings.local.json").exists()


def error_lines(done: subprocess.CompletedProcess[str]) -> list[str]:
    assert "Traceback" not in done.stderr
    return [line for line in done.stderr.splitlines() if "error:" in line]


@pytest.mark.req("R-A12")
def test_bad_agent_tracked_file_and_project_scope_are_one_line(box: Box, module: Path) -> None:
    bad = hookd(box, "install", "--agent", "cursor", ".claude/hooks.py")
    assert bad.returncode == 2
    assert error_lines(bad) == [
        "hookd install: error: argument --agent: unknown agent 'cursor': expected one of "
        "claude, codex, gemini, copilot, qwen, opencode, kilo, pi, droid, cline, all"
    ]
    shared = hookd(box, "install", "--agent", "gemini", "--scope", "project", ".claude/hooks.py")
    assert shared.returncode == 1
    assert error_lines(shared) == [
        "hookd install: error: --scope project writes a shared file; for gemini use --scope "
        "local or --scope user"
    ]
    subprocess.run(["git", "init", "-q"], cwd=box.project, check=True)
    tracked = box.project / FILES["codex"]
    tracked.parent.mkdir()
    tracked.write_text("{}\n")
    subprocess.run(["git", "add", str(tracked)], cwd=box.project, check=True)
    refused = hookd(box, "install", "--agent", "qwen", "--agent", "codex", ".claude/hooks.py")
    assert refused.returncode == 1
    assert error_lines(refused) == [
        f"hookd install: error: {tracked}: git tracks it, and a local install writes this "
        "machine's paths into it; use --scope user"
    ]
    assert tracked.read_text() == "{}\n" and not (box.project / FILES["qwen"]).exists()
    assert box.daemon_dirs() == []


@pytest.mark.req("R-A12")
def test_an_untracked_local_file_is_ignored_by_git(box: Box, module: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=box.project, check=True)
    done = hookd(box, "install", "--agent", "gemini", ".claude/hooks.py", "--no-start")
    assert done.returncode == 0, done.stderr
    assert "git now ignores /.gemini/settings.json" in done.stdout
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=box.project, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert ".gemini" not in status.stdout


NOTIFYING = """\
from hookd import HookMatcher, deny


async def guard(input_data, tool_use_id, context):
    return deny("no") if "forbidden" in input_data["tool_input"].get("command", "") else None


async def quiet(input_data, tool_use_id, context):
    return None


hooks = {
    "PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard])],
    "Notification": [HookMatcher(hooks=[quiet])],
    "PreCompact": [HookMatcher(hooks=[quiet])],
    "PermissionRequest": [HookMatcher(hooks=[quiet])],
}
"""


@pytest.mark.req("R-A13")
def test_events_an_agent_never_sends_are_one_line(box: Box, module: Path) -> None:
    module.write_text(NOTIFYING)
    said = {}
    for agent in OTHER_AGENTS:
        done = hookd(box, "install", "--agent", agent, ".claude/hooks.py", "--no-start")
        assert done.returncode == 0, done.stderr
        said[agent] = [line for line in done.stdout.splitlines() if "never sends" in line]
    assert said == {
        "codex": ["hookd: codex never sends: Notification"],
        "gemini": ["hookd: gemini never sends: PermissionRequest"],
        "copilot": [],
        "qwen": [],
    }
    assert sorted(read_settings(box.project / FILES["gemini"])["hooks"]) == [
        "BeforeTool", "Notification", "PreCompress",
    ]  # fmt: skip


@pytest.mark.req("R-A14")
def test_trust_steps_are_one_line(box: Box, module: Path) -> None:
    done = hookd(box, "install", "--agent", "codex", ".claude/hooks.py", "--no-start")
    (line,) = [x for x in done.stdout.splitlines() if "trust" in x]
    config = box.home / ".codex" / "config.toml"
    assert line == (
        f'hookd: codex runs hooks only once trusted: add [projects."{box.project}"] '
        f'trust_level = "trusted" to {config} (codex reads a project\'s .codex/ only then), '
        "and approve the new hooks with /hooks in codex (codex exec: add "
        "--dangerously-bypass-hook-trust)"
    )
    assert not config.exists()  # never written on the user's behalf
    config.parent.mkdir(exist_ok=True)
    config.write_text(f'[projects."{box.project}"]\ntrust_level = "trusted"\n')
    done = hookd(box, "install", "--agent", "codex", ".claude/hooks.py", "--no-start")
    (line,) = [x for x in done.stdout.splitlines() if "trust" in x]
    assert line == (
        "hookd: codex runs hooks only once trusted: approve the new hooks with /hooks in codex "
        "(codex exec: add --dangerously-bypass-hook-trust)"
    )
    gemini = hookd(box, "install", "--agent", "gemini", ".claude/hooks.py", "--no-start")
    assert [x for x in gemini.stdout.splitlines() if "trust" in x] == [
        f"hookd: gemini runs project hooks only in a trusted folder: trust {box.project} when "
        "gemini asks (or with /permissions)"
    ]


@pytest.mark.req("R-A15", "R-A17")
def test_the_entry_starts_the_daemon_when_it_is_down(box: Box, module: Path) -> None:
    done = hookd(box, "install", "--agent", "gemini", ".claude/hooks.py")
    assert done.returncode == 0, done.stderr
    assert hookd(box, "down").returncode == 0
    assert hookd(box, "status", ".claude/hooks.py").returncode == 3
    command = ours(read_settings(box.project / FILES["gemini"]), "BeforeTool")["command"]
    denied = run_entry(command, GEMINI_CALL, box.env())
    assert (denied.returncode, denied.stderr) == (0, "")
    assert json.loads(denied.stdout) == {"decision": "deny",
                                         "reason": "forbidden by the daemon guard"}  # fmt: skip
    assert hookd(box, "status", ".claude/hooks.py").returncode == 0  # up, and stays up
    harmless = {**GEMINI_CALL, "tool_input": {"command": "ls"}}
    assert run_entry(command, harmless, box.env()).stdout == ""
    status = hookd(box, "status", "--agent", "gemini", "--json")
    (daemon,) = json.loads(status.stdout)
    assert daemon["agents"]["gemini"]["calls"] == 2
    assert daemon["configs"] == {str(box.project / FILES["gemini"]): "gemini"}
    codex_only = json.loads(hookd(box, "status", "--agent", "codex", "--json").stdout)
    assert codex_only[0]["agents"] == {} and codex_only[0]["configs"] == {}


@pytest.mark.req("R-A15")
@pytest.mark.parametrize("damage", ["broken", "deleted"])
def test_a_daemon_that_cannot_start_fails_closed(box: Box, module: Path, damage: str) -> None:
    done = hookd(box, "install", "--agent", "codex", ".claude/hooks.py", "--no-start")
    assert done.returncode == 0, done.stderr
    if damage == "broken":
        module.write_text("def broken(:\n")
    else:
        module.unlink()
    config = read_settings(box.project / FILES["codex"])
    call = {**GEMINI_CALL, "hook_event_name": "PreToolUse", "tool_name": "Bash"}
    failed = run_entry(ours(config, "PreToolUse")["command"], call, box.env())
    assert (failed.returncode, failed.stdout) == (2, "")
    (line,) = failed.stderr.splitlines()
    assert line.startswith("hookd: the hookd daemon is not running on 127.0.0.1:")
    assert "and did not start: " in line
    lenient = run_entry(ours(config, "PostToolUse")["command"], call, box.env())
    assert lenient.returncode == 1  # PostToolUse blocks nothing: shown, not obeyed


@pytest.mark.req("R-A17")
def test_uninstall_of_one_agent_keeps_the_others(box: Box, module: Path) -> None:
    for agent in ("claude", "codex", "qwen"):
        done = hookd(box, "install", "--agent", agent, ".claude/hooks.py", "--no-start")
        assert done.returncode == 0, done.stderr
    done = hookd(box, "uninstall", "--agent", "codex", ".claude/hooks.py")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("hookd: removed 3 hookd entries from .codex/hooks.json; the "
                                  "daemon keeps serving ")  # fmt: skip
    assert not (box.project / FILES["codex"]).exists()
    assert (box.project / FILES["qwen"]).is_file()
    assert (box.project / ".claude" / "settings.local.json").is_file()
    done = hookd(box, "uninstall", ".claude/hooks.py")  # claude
    assert "the daemon keeps serving .qwen/settings.json" in done.stdout


@pytest.mark.req("R-A13")
def test_a_module_with_nothing_an_agent_sends_is_one_line(box: Box, module: Path) -> None:
    module.write_text(
        "from hookd import HookMatcher\n\n\nasync def quiet(i, t, c):\n    return None\n\n\n"
        'hooks = {"PermissionRequest": [HookMatcher(hooks=[quiet])]}\n'
    )
    done = hookd(box, "install", "--agent", "gemini", ".claude/hooks.py", "--no-start")
    assert done.returncode == 1
    assert error_lines(done) == [
        f"hookd install: error: {module} has no hooks for an event gemini sends"
    ]
    assert not (box.project / FILES["gemini"]).exists() and box.daemon_dirs() == []


@pytest.mark.req("R-A09")
def test_install_help_names_the_agents() -> None:
    done = subprocess.run([HOOKD, "install", "--help"], capture_output=True, text=True,
                          timeout=60, check=True)  # fmt: skip
    text = " ".join(done.stdout.split())
    assert "--agent AGENT" in text and "codex, gemini, copilot, qwen, opencode, kilo, pi" in text
    assert "hookd-agent.sh" in text and ".codex/hooks.json" in text


@pytest.mark.req("R-A10")
def test_uninstall_of_every_agent_stops_the_daemon(box: Box, module: Path) -> None:
    """The last file of the module gone, whichever agent's it was, the daemon stops: each
    agent's uninstall reads what the ones before it left in the install record."""
    done = hookd(box, "install", "--agent", "claude", "--agent", "codex", "--agent", "gemini",
                 ".claude/hooks.py")  # fmt: skip
    assert done.returncode == 0, done.stderr
    done = hookd(box, "uninstall", "--agent", "all", ".claude/hooks.py")
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("; daemon stopped\n"), done.stdout
    assert box.daemon_dirs() == []  # forgotten: nothing of it is left
