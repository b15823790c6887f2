"""The ready guard through its real interfaces: the hook (testing kit, every agent's dialect),
and ``hookd guard`` run from the console script."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import hookd.testing
from tests.cli.console import hookd as run_console
from tests.cli.console import module
from tests.guards.corpus import MODULE

AGENTS = ["claude", "codex", "gemini", "copilot", "qwen"]


@pytest.fixture(scope="module")
def kit() -> hookd.testing.Hooks:
    return hookd.testing.load(str(MODULE))


@pytest.mark.req("R-G08")
@pytest.mark.parametrize("agent", AGENTS)
def test_every_agents_shell_tool_reaches_the_guard(kit: hookd.testing.Hooks, agent: str) -> None:
    denied = kit.fire_sync("PreToolUse", agent=agent, tool_name="Bash",
                           tool_input={"command": "sudo bash -c 'rm -r -f ~'"})  # fmt: skip
    assert denied.decision == "deny", denied
    assert (denied.reason or "").startswith("rm-recursive: `rm -r -f ~` (via sudo > bash -c)")
    encoded = denied.encoded
    assert encoded is not None and encoded.exit_code == 0 and encoded.stdout, encoded
    allowed = kit.fire_sync("PreToolUse", agent=agent, tool_name="Bash",
                            tool_input={"command": "rm -rf /tmp/build && ls"})  # fmt: skip
    assert allowed.decision == "none", allowed


@pytest.mark.req("R-G09")
def test_options_allowed_paths_strict_and_packs(tmp_path: Path) -> None:
    path = module(tmp_path / "hooks.py", """
        from hookd import HookMatcher
        from hookd.guards import destructive_commands

        hooks = {"PreToolUse": [
            HookMatcher(matcher="Bash", hooks=[
                destructive_commands(allow=["build"], strict=True, disable=["git"])
            ])
        ]}
    """)  # fmt: skip
    hooks = hookd.testing.load(path)

    def decide(command: str) -> str:
        fired = hooks.fire_sync("PreToolUse", tool_name="Bash", tool_input={"command": command},
                                cwd="/home/dev/project")  # fmt: skip
        return fired.decision

    assert decide("rm -rf build") == "none"  # allowed, relative to the session's cwd
    assert decide("rm -rf /home/dev/project/build/out") == "none"
    assert decide("rm -rf src") == "deny"
    assert decide("git reset --hard") == "none"  # the git pack is off
    assert decide("$cmd -rf x") == "deny"  # strict: a program not known
    assert decide("echo 'unclosed") == "deny"  # strict: does not parse
    with pytest.raises(ValueError, match="unknown rule pack or rule 'gti'"):
        from hookd.guards import destructive_commands

        destructive_commands(disable=["gti"])


@pytest.mark.req("R-G07", "R-G09")
def test_a_line_too_big_to_read_is_denied_even_when_not_strict(kit: hookd.testing.Hooks) -> None:
    padded = ": " + "x " * 500_000 + "; rm -rf ~"
    fired = kit.fire_sync("PreToolUse", tool_name="Bash", tool_input={"command": padded})
    assert fired.decision == "deny" and "not read whole" in (fired.reason or "")


@pytest.mark.req("R-G12")
def test_hookd_guard_shows_the_commands_and_the_rule_and_exits_2_on_deny() -> None:
    done = run_console("guard", "--cwd", "/home/dev", "sudo env X=1 bash -c 'rm -fr ~' | tee x")
    assert done.returncode == 2, done.stderr
    assert done.stdout.splitlines() == [
        "commands:",
        "  rm -fr ~   (via sudo > env > bash -c)",
        "  tee x",
        "rule rm-recursive (filesystem): `rm -fr ~` deletes '~' recursively, outside the "
        "allowed paths",
        "deny: rm-recursive: `rm -fr ~` (via sudo > env > bash -c) deletes '~' recursively, "
        "outside the allowed paths",
    ]


@pytest.mark.req("R-G12")
def test_hookd_guard_json_and_allowed_lines_exit_0() -> None:
    done = run_console("guard", "--json", "git push --force-with-lease && echo $(date)")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["decision"] == "allow" and report["findings"] == []
    assert [c["argv"] for c in report["commands"]] == [
        ["git", "push", "--force-with-lease"], ["echo", "$(date)"], ["date"]
    ]  # fmt: skip
    assert report["commands"][1]["dynamic"] == [1]
    strict = run_console("guard", "--strict", "--json", "$tool -rf x")
    assert strict.returncode == 2 and json.loads(strict.stdout)["decision"] == "deny"
    bad = run_console("guard", "--disable", "nope", "ls")
    assert bad.returncode == 1 and "unknown rule pack or rule 'nope'" in bad.stderr


@pytest.mark.req("R-G09")
def test_a_home_or_project_kept_in_a_temporary_folder_is_still_guarded(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    env = {"HOME": str(home)}
    for line in ("rm -rf ~", "sudo bash -c 'rm -r -f ~'", f"rm -rf {tmp_path}", "rm -rf ."):
        done = run_console("guard", "--cwd", str(project), line, env=env)
        assert done.returncode == 2, (line, done.stdout)
    kept = run_console("guard", "--cwd", str(project), f"rm -rf {project}/build", env=env)
    assert kept.returncode == 0, kept.stdout  # below the project, in a temporary folder
