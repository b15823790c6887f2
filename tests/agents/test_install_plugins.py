"""``hookd install --agent opencode|kilo|pi``: hookd's plugin file (not entries in a JSON file),
through the console script, with HOME and the XDG directories in a tmp box."""

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

from hookd.agents.plugin_settings import read_settings
from tests.agents.test_shim import free_port
from tests.daemon.support import HOOKD, Box, hookd, squatter

HOOKS_DIR = Path(__file__).resolve().parents[1] / "hooks"
PLUGIN_AGENTS = ("opencode", "kilo", "pi")
FOLDERS = {"opencode": ".opencode/plugins", "kilo": ".kilo/plugins", "pi": ".pi/extensions"}
USER_FOLDERS = {"opencode": ".config/opencode/plugins", "kilo": ".config/kilo/plugins",
                "pi": ".pi/agent/extensions"}  # fmt: skip
#: The events of tests/hooks/daemon_guard.py, in each agent's names, as the plugin routes them.
ROUTES = {
    "opencode": ["session.created", "tool.execute.before", "tool.execute.after"],
    "pi": ["session_start", "tool_call", "tool_result"],
}


@pytest.fixture
def box(tmp_path: Path) -> Box:
    b = Box(tmp_path)
    b.env()
    subprocess.run(["git", "init", "-q", str(b.project)], check=True)
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
    done = hookd(box, "install", *args, ".claude/hooks.py", "--no-start")
    assert done.returncode == 0, done.stderr
    return done


def plugin(folder: Path) -> Path:
    (found,) = folder.glob("hookd-*.ts")
    return found


def settings(path: Path) -> dict[str, Any]:
    found = read_settings(path.read_text())
    assert found is not None
    return found


def tree(box: Box) -> list[Path]:
    found = [*box.project.rglob("*"), *box.home.rglob("*")]
    return sorted(p for p in found if "__pycache__" not in p.parts and ".git" not in p.parts)


@pytest.mark.req("R-A80")
@pytest.mark.parametrize("agent", PLUGIN_AGENTS)
@pytest.mark.parametrize("scope", ["local", "user"])
def test_the_plugin_names_the_daemon_and_no_secret(
    box: Box, module: Path, agent: str, scope: str
) -> None:
    done = install(box, "--agent", agent, "--scope", scope)
    (state,) = box.daemon_dirs()
    folder = (box.project if scope == "local" else box.home) / (
        FOLDERS if scope == "local" else USER_FOLDERS
    )[agent]
    path = plugin(folder)
    assert path.name == f"hookd-{state.name}.ts"
    assert "hookd's plugin; " in done.stdout and str(path.name) in done.stdout
    found = settings(path)
    port = json.loads((state / "install.json").read_text())["port"]
    assert found["port"] == port and found["key"] == state.name
    assert found["tokenFile"] == str(state / "token") and box.token() not in path.read_text()
    assert found["readyFile"].endswith(f"/hookd/{state.name}.json")
    assert (found["hookd"], found["module"], found["failOpen"]) == (HOOKD, str(module), False)
    routes = found["routes"]
    assert list(routes) == ROUTES["pi" if agent == "pi" else "opencode"]
    closed = [e for e, r in routes.items() if r["closed"]]
    assert closed == ["tool_call" if agent == "pi" else "tool.execute.before"]
    assert {r["deadline"] for r in routes.values()} == {31}  # the events' budgets
    assert found.get("agent", agent) == agent
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    argv = ["git", "status", "--porcelain", "--untracked-files=all"]
    status = subprocess.run(argv, cwd=box.project, capture_output=True, text=True, check=True)
    assert ".opencode" not in status.stdout and ".kilo" not in status.stdout
    assert ".pi" not in status.stdout


@pytest.mark.req("R-A80")
def test_fail_open_opens_every_route(box: Box, module: Path) -> None:
    install(box, "--agent", "pi", "--fail-open")
    found = settings(plugin(box.project / FOLDERS["pi"]))
    assert found["failOpen"] is True
    assert not any(r["closed"] for r in found["routes"].values())


@pytest.mark.req("R-A81")
@pytest.mark.parametrize("agent", PLUGIN_AGENTS)
def test_uninstall_removes_exactly_the_plugin_and_the_folders_it_made(
    box: Box, module: Path, agent: str
) -> None:
    before = tree(box)
    for _ in range(2):  # a second install replaces the first's file
        install(box, "--agent", agent)
    path = plugin(box.project / FOLDERS[agent])
    done = hookd(box, "uninstall", "--agent", agent, ".claude/hooks.py")
    assert done.returncode == 0, done.stderr
    assert "daemon stopped" in done.stdout
    assert not path.exists() and tree(box) == before
    exclude = (box.project / ".git" / "info" / "exclude").read_text()
    assert "hookd" not in exclude


@pytest.mark.req("R-A81")
def test_the_users_own_plugins_stay_as_they_are(box: Box, module: Path) -> None:
    folder = box.project / FOLDERS["opencode"]
    folder.mkdir(parents=True)
    (folder / "mine.ts").write_text("export const Mine = async () => ({})\n")
    install(box, "--agent", "opencode")
    path = plugin(folder)
    path.write_text("// the user's own now\n")  # no mark: not hookd's any more
    done = hookd(box, "uninstall", "--agent", "opencode", ".claude/hooks.py")
    assert done.returncode == 0, done.stderr
    assert path.read_text() == "// the user's own now\n"
    assert (folder / "mine.ts").read_text() == "export const Mine = async () => ({})\n"


@pytest.mark.req("R-A81")
def test_a_file_of_that_name_that_is_not_hookds_is_refused(box: Box, module: Path) -> None:
    install(box, "--agent", "kilo")
    path = plugin(box.project / FOLDERS["kilo"])
    assert hookd(box, "uninstall", "--agent", "kilo", ".claude/hooks.py").returncode == 0
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("// mine\n")
    refused = hookd(box, "install", "--agent", "opencode", "--agent", "kilo", ".claude/hooks.py")
    assert refused.returncode == 1
    errors = [line for line in refused.stderr.splitlines() if "error:" in line]
    assert errors == [
        f"hookd install: error: {path}: a file of that name is there, and hookd did not write "
        "it; move it away, then install again"
    ]
    assert path.read_text() == "// mine\n"
    assert not (box.project / ".opencode").exists() and box.daemon_dirs() == []


NOTIFYING = """\
from hookd import HookMatcher, deny


async def guard(input_data, tool_use_id, context):
    return deny("no") if "forbidden" in input_data["tool_input"].get("command", "") else None


async def quiet(input_data, tool_use_id, context):
    return None


hooks = {
    "PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard])],
    "Notification": [HookMatcher(hooks=[quiet])],
    "UserPromptSubmit": [HookMatcher(hooks=[quiet])],
}
"""


@pytest.mark.req("R-A80")
def test_events_the_agent_never_sends_are_one_line(box: Box, module: Path) -> None:
    module.write_text(NOTIFYING)
    for agent, prompt in (("opencode", "chat.message"), ("pi", "input")):
        done = install(box, "--agent", agent)
        assert f"hookd: {agent} never sends: Notification" in done.stdout.splitlines()
        routes = settings(plugin(box.project / FOLDERS[agent]))["routes"]
        assert routes[prompt] == {"deadline": 31, "closed": True}  # a prompt refused: closed


@pytest.mark.req("R-A11")
def test_agent_all_takes_the_plugin_agents_on_path(box: Box, module: Path) -> None:
    bin_dir = box.root / "bin"
    bin_dir.mkdir()
    for name in ("opencode", "pi"):
        (bin_dir / name).write_text("#!/bin/sh\nexit 0\n")
        (bin_dir / name).chmod(0o755)
    env = box.env(PATH=f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin")
    done = hookd(box, "install", "--agent", "all", ".claude/hooks.py", "--no-start", env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "hookd: --agent all: claude, opencode, pi"
    assert plugin(box.project / FOLDERS["opencode"]) and plugin(box.project / FOLDERS["pi"])
    assert not (box.project / ".kilo").exists()
    done = hookd(box, "uninstall", "--agent", "all", ".claude/hooks.py", env=env)
    assert done.returncode == 0, done.stderr
    assert not (box.project / ".opencode").exists() and not (box.project / ".pi").exists()


@pytest.mark.req("R-A82")
def test_status_and_doctor_know_the_plugins(box: Box, module: Path) -> None:
    install(box, "--agent", "opencode")
    install(box, "--agent", "pi", "--scope", "user")
    assert hookd(box, "up", ".claude/hooks.py").returncode == 0
    path = plugin(box.project / FOLDERS["opencode"])
    (daemon,) = json.loads(hookd(box, "status", "--agent", "opencode", "--json").stdout)
    assert daemon["configs"] == {str(path): "opencode"}
    doctor = json.loads(hookd(box, "doctor", "--json").stdout)
    found = {(i["agent"], i["scope"]): i for i in doctor["installs"]}
    assert set(found) >= {("opencode", "local"), ("pi", "user")}
    assert found[("opencode", "local")]["ok"] and found[("pi", "user")]["ok"], doctor
    checks = {c["check"]: c for c in found[("opencode", "local")]["checks"]}
    assert checks["installed"]["detail"].startswith("hookd's plugin in .opencode/plugins/hookd-")
    text = path.read_text()
    path.write_text(text.replace(f'"port": {settings(path)["port"]}', '"port": 1'))
    doctor = json.loads(hookd(box, "doctor", "--json").stdout)
    (bad,) = [i for i in doctor["installs"] if i["agent"] == "opencode"]
    (check,) = bad["checks"]
    assert not check["ok"] and "names another daemon than the module's (port 1)" in check["detail"]
    assert check["fix"] == "hookd install --agent opencode .claude/hooks.py"


ADDED = """
async def prompt(input_data, tool_use_id, context):
    return None


hooks["UserPromptSubmit"] = [HookMatcher(hooks=[prompt])]
"""


@pytest.mark.req("R-A82")
def test_an_event_added_later_is_named_for_the_plugin(box: Box, module: Path) -> None:
    install(box, "--agent", "kilo")
    module.write_text(module.read_text() + ADDED)
    assert hookd(box, "up", ".claude/hooks.py").returncode == 0
    (daemon,) = json.loads(hookd(box, "status", "--json").stdout)
    (left_out,) = daemon["unrouted"]
    assert left_out["agent"] == "kilo" and left_out["events"] == ["UserPromptSubmit"]
    assert left_out["message"].startswith("kilo: UserPromptSubmit (chat.message) is in the module")


@pytest.mark.req("R-A81")
def test_a_daemon_that_cannot_start_takes_the_plugin_back(box: Box, module: Path) -> None:
    port = free_port()
    with squatter(port):  # another program on the port: the daemon cannot start
        done = hookd(box, "install", "--agent", "pi", ".claude/hooks.py", "--port", str(port))
    assert done.returncode == 1
    assert "the daemon did not start" in done.stderr
    assert not (box.project / ".pi").exists() and box.daemon_dirs() == []
