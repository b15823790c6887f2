"""``hookd install`` across scopes, checkouts and git: what a shared file may hold, which
project it lands in, what stays behind (secrets, backups, state) after uninstall."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from tests.daemon.cli_session import HOOKS_DIR, run_cli
from tests.daemon.support import HOOKD, Box, hookd, read_settings
from tests.support.fake_anthropic import run_tool_then_done

LOCAL = Path(".claude") / "settings.local.json"
OTHER = {"model": "claude-sonnet-4-5", "permissions": {"allow": ["Bash(ls *)"]}}


def module_in(project: Path, name: str = "daemon_guard.py") -> Path:
    target = project / ".claude" / "hooks.py"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(HOOKS_DIR / name, target)
    return target


def commands_of(settings: dict[str, object]) -> list[dict[str, object]]:
    hooks = settings["hooks"]
    assert isinstance(hooks, dict)
    return [h for groups in hooks.values() for g in groups for h in g["hooks"]]


def with_hookd_on_path(box: Box) -> dict[str, str]:
    """The box's environment with the console script's folder first on PATH."""
    env = box.env()
    return {**env, "PATH": f"{Path(HOOKD).parent}{os.pathsep}{env['PATH']}"}


def git(folder: Path, *words: str) -> str:
    done = subprocess.run(
        ["git", *words], cwd=folder, capture_output=True, text=True, check=True, timeout=30
    )
    return done.stdout


def files_holding(folder: Path, secret: str) -> list[str]:
    return [
        str(p.relative_to(folder)) for p in folder.rglob("*")
        if p.is_file() and secret in p.read_text(errors="replace")
    ]  # fmt: skip


# ------------------------------------------------------------------ project scope (shared)


@pytest.mark.req("R-D08")
def test_project_scope_names_nothing_of_this_checkout_or_user(box: Box) -> None:
    module_in(box.project)
    done = hookd(box, "install", ".claude/hooks.py", "--scope", "project", "--no-start")
    assert done.returncode == 0, done.stderr
    path = box.project / ".claude" / "settings.json"
    text = path.read_text()
    assert str(box.root) not in text and "Bearer" not in text and "token" not in text
    handlers = commands_of(read_settings(path))
    assert handlers and all(h["type"] == "command" for h in handlers)
    for h in handlers:
        command = str(h["command"])
        assert command.startswith("hookd ") and " --port " not in command
        assert '"$CLAUDE_PROJECT_DIR"/.claude/hooks.py' in command
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


@pytest.mark.req("R-D08")
def test_project_scope_routes_only_what_the_module_handles(box: Box) -> None:
    module_in(box.project)  # PreToolUse on Bash, PostToolUse on Bash|Write, SessionStart
    done = hookd(box, "install", ".claude/hooks.py", "--scope", "project", "--no-start")
    assert done.returncode == 0, done.stderr
    hooks = read_settings(box.project / ".claude" / "settings.json")["hooks"]
    assert isinstance(hooks, dict)
    assert sorted(hooks) == ["PostToolUse", "PreToolUse", "SessionStart"]
    matchers = {event: [g.get("matcher") for g in groups] for event, groups in hooks.items()}
    assert matchers == {"PreToolUse": ["Bash"], "PostToolUse": ["Bash|Write"],
                        "SessionStart": [None]}  # fmt: skip
    (start,) = hooks["SessionStart"][0]["hooks"]
    assert start["command"].startswith("hookd call SessionStart --hooks ")


@pytest.mark.real_cli
@pytest.mark.req("R-D08", "R-D09")
def test_a_second_checkout_is_guarded_by_its_own_module(claude: Path, box: Box) -> None:
    env = with_hookd_on_path(box)
    module_in(box.project, "daemon_checkout.py")
    done = hookd(box, "install", ".claude/hooks.py", "--scope", "project", env=env)
    assert done.returncode == 0, done.stderr
    clone = box.root / "clone"
    shutil.copytree(box.project, clone)  # what a teammate's clone or a worktree holds
    try:
        script = run_tool_then_done(["echo forbidden"])
        runs = {c.name: run_cli(claude, box, script, env=env, cwd=c) for c in (clone, box.project)}
        status = hookd(box, "status", "--json", env=env)
    finally:
        hookd(box, "down", "--all", env=env)  # the clone's daemon is another project's
    for name, run in runs.items():
        assert run.returncode == 0, run.stderr
        (result,) = run.tool_results()
        assert result.get("is_error") is True, run.tool_result_text(0)
        assert f"denied by the module of checkout {name}" in run.tool_result_text(0)
    daemons = json.loads(status.stdout)
    assert len({d["port"] for d in daemons}) == 2  # one daemon per checkout, on its own port


@pytest.mark.real_cli
@pytest.mark.req("R-D08")
def test_a_clone_without_hookd_on_path_blocks_the_guarded_call(claude: Path, box: Box) -> None:
    module_in(box.project, "daemon_checkout.py")
    done = hookd(box, "install", ".claude/hooks.py", "--scope", "project", "--no-start")
    assert done.returncode == 0, done.stderr
    path = os.pathsep.join(
        d for d in os.environ["PATH"].split(os.pathsep) if not (Path(d) / "hookd").exists()
    )
    run = run_cli(claude, box, run_tool_then_done(["echo harmless"]), env={"PATH": path})
    assert run.returncode == 0, run.stderr
    (result,) = run.tool_results()
    assert result.get("is_error") is True, run.tool_result_text(0)
    assert 'blocking because onFailure is "block"' in run.tool_result_text(0)


# ------------------------------------------------------------------------------- --port


@pytest.mark.req("R-D01")
@pytest.mark.parametrize("port", ["99999", "0", "-1", "http"])
def test_a_bad_port_is_one_line_and_writes_nothing(box: Box, port: str) -> None:
    module_in(box.project)
    done = hookd(box, "install", ".claude/hooks.py", "--port", port)
    assert done.returncode == 2
    errors = [line for line in done.stderr.splitlines() if "error:" in line]
    assert errors == [errors[0]] and "--port" in errors[0] and "Traceback" not in done.stderr
    assert "65535" in errors[0] or "not a port number" in errors[0]
    assert not (box.project / LOCAL).exists() and box.daemon_dirs() == []
    assert hookd(box, "up", ".claude/hooks.py", "--port", port).returncode == 2


@pytest.mark.req("R-D07")
def test_a_bad_remembered_port_is_ignored_and_forgotten(box: Box) -> None:
    module_in(box.project)
    assert hookd(box, "install", ".claude/hooks.py", "--no-start").returncode == 0
    (state,) = box.daemon_dirs()
    record = json.loads((state / "install.json").read_text())
    (state / "install.json").write_text(json.dumps({**record, "port": 0}))  # an older hookd's
    assert hookd(box, "install", ".claude/hooks.py", "--no-start").returncode == 0
    urls = [h["url"] for h in commands_of(read_settings(box.project / LOCAL)) if "url" in h]
    assert urls and not any(":0/" in str(u) for u in urls)
    assert hookd(box, "uninstall", ".claude/hooks.py").returncode == 0
    assert box.daemon_dirs() == []


# ------------------------------------------------------------------------- secrets and git


@pytest.mark.req("R-D06", "R-D07", "R-D19")
def test_the_token_never_reaches_git_nor_outlives_uninstall(box: Box) -> None:
    git(box.project, "init", "-q")
    module_in(box.project)
    path = box.project / LOCAL
    path.write_text(json.dumps(OTHER))
    path.chmod(0o644)
    said = ""
    for port in ("20001", "20002"):  # installing twice keeps the first backup
        done = hookd(box, "install", ".claude/hooks.py", "--no-start", "--port", port)
        assert done.returncode == 0, done.stderr
        said += done.stdout
    token = box.token()
    assert said.count("git now ignores /.claude/settings.local.json") == 1
    untracked = git(box.project, "status", "--porcelain", "--untracked-files=all")
    assert "settings.local" not in untracked and ".claude/hooks.py" in untracked
    backup = path.with_name("settings.local.json.hookd.bak")
    assert json.loads(backup.read_text()) == OTHER
    assert files_holding(box.project, token) == [str(LOCAL)]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert hookd(box, "uninstall", ".claude/hooks.py").returncode == 0
    assert read_settings(path) == OTHER and stat.S_IMODE(path.stat().st_mode) == 0o644
    assert files_holding(box.root, token) == [] and not backup.exists()
    assert box.daemon_dirs() == []


def test_a_tracked_settings_file_is_named(box: Box) -> None:
    git(box.project, "init", "-q")
    module_in(box.project)
    (box.project / LOCAL).write_text("{}")
    git(box.project, "add", str(LOCAL))
    done = hookd(box, "install", ".claude/hooks.py", "--no-start")
    assert done.returncode == 0, done.stderr
    assert "warning: git tracks settings.local.json" in done.stdout


# ------------------------------------------------------------- which project, which state


@pytest.mark.req("R-D01")
def test_install_from_a_subdirectory_writes_the_projects_settings(box: Box) -> None:
    module_in(box.project)
    sub = box.project / "src" / "deep"
    sub.mkdir(parents=True)
    done = hookd(box, "install", "../../.claude/hooks.py", "--no-start", cwd=sub)
    assert done.returncode == 0, done.stderr
    assert (box.project / LOCAL).is_file()
    assert not (sub / ".claude").exists() and not (box.project / "src" / ".claude").exists()
    assert hookd(box, "uninstall", "../../.claude/hooks.py", cwd=sub).returncode == 0
    assert not (box.project / LOCAL).exists()


@pytest.mark.req("R-D25")
def test_failed_installs_and_unknown_modules_leave_no_state(box: Box) -> None:
    module_in(box.project).write_text("def broken(:\n")
    assert hookd(box, "install", ".claude/hooks.py", "--no-start").returncode == 1
    done = hookd(box, "uninstall", "nothere.py")
    assert done.returncode == 1
    assert done.stderr.strip() == (
        "hookd uninstall: error: nothere.py: no such file, and nothing installed for it"
    )
    assert box.daemon_dirs() == []


@pytest.mark.req("R-D07", "R-D25")
def test_uninstalling_one_scope_keeps_the_daemon_another_uses(box: Box) -> None:
    module_in(box.project)
    try:
        for scope in ("local", "user"):
            done = hookd(box, "install", ".claude/hooks.py", "--scope", scope)
            assert done.returncode == 0, done.stderr
        done = hookd(box, "uninstall", ".claude/hooks.py")
        assert done.returncode == 0, done.stderr
        assert "the daemon keeps serving" in done.stdout
        assert hookd(box, "status", ".claude/hooks.py").returncode == 0
        user = read_settings(box.home / ".claude" / "settings.json")
        assert any("hookd=" in str(h.get("url", "")) for h in commands_of(user))
        done = hookd(box, "uninstall", ".claude/hooks.py", "--scope", "user")
        assert done.returncode == 0 and "daemon stopped" in done.stdout
        assert hookd(box, "status", ".claude/hooks.py").returncode == 3
        assert box.daemon_dirs() == []
    finally:
        hookd(box, "down")
