"""``hookd new [PATH]``: a starter hooks module and a passing test for it."""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any, Final

from hookd.install.agent_files import OTHER_AGENTS

__all__ = ["add_new_parser", "new_main", "starter_files"]

DESCRIPTION = """\
Write a starter hooks module and a pytest file that tests it with hookd.testing,
so the first thing you run is green: PATH is an existing folder (default: the
current one; hooks.py is written in it) or a module file (path/to/guard.py;
.py is added when missing). The test goes beside the module (test_guard.py),
except that a module inside a dot-folder such as .claude/ is tested from the
folder above it, where pytest looks for tests. Existing files are never
overwritten unless --force is given. The tests need pytest in hookd's
environment: install hookd with its `test` extra.
"""

EPILOG = """\
examples:
  hookd new                 hooks.py and test_hooks.py here
  hookd new .claude/hooks   .claude/hooks.py, tested by test_hooks.py here
  hookd new guard.py        guard.py and test_guard.py
"""

HOOKS: Final = '''\
"""Hooks for Claude Code: guard your sessions with `hookd install {name}`; test with pytest."""

from hookd import HookMatcher, add_context, deny
from hookd.guards import destructive_commands
from hookd.shell import parse


async def guard(input_data, tool_use_id, context):
    """This repository's own rule, on what the command line really runs (hookd.shell)."""
    for command in parse(input_data["tool_input"].get("command", "")).commands:
        if command.name == "npm" and command.args[:1] == ("publish",):
            return deny(f"`{{command.shown()}}`: releases are published by CI, not from here")
    return None  # no objection: the CLI's usual permission rules apply


async def rules(input_data, tool_use_id, context):
    """Remind the model of the house rules with every prompt."""
    return add_context("Run the tests before you commit.", event="UserPromptSubmit")


hooks = {{
    # destructive_commands(): rm -rf outside temporary folders, git reset --hard, push --force,
    # dd of=/dev/..., and the same behind sudo, bash -c, xargs, $(...); see `hookd guard --help`
    "PreToolUse": [HookMatcher(matcher="Bash", hooks=[destructive_commands(), guard], timeout=10)],
    "UserPromptSubmit": [HookMatcher(hooks=[rules])],
}}
'''

TEST: Final = '''\
"""Tests for {name}: each fires one event with a realistic input, as Claude Code sends it,
then as each other agent CLI sends it (its own event and tool names, its own answer)."""

from pathlib import Path

import pytest

import hookd.testing

hooks = hookd.testing.load(str(Path(__file__).parent / "{module}"))


def test_guard_denies_recursive_delete_of_root():
    result = hooks.fire_sync("PreToolUse", tool_name="Bash", tool_input={{"command": "rm -rf /"}})
    assert result.decision == "deny", result
    assert "rm -rf /" in result.reason


def test_guard_denies_disguised_deletes():
    command = "sudo bash -c 'rm -r -f ~'"
    result = hooks.fire_sync("PreToolUse", tool_name="Bash", tool_input={{"command": command}})
    assert result.decision == "deny", result
    assert "rm-recursive" in result.reason


def test_the_repositorys_own_rule_reads_through_wrappers():
    command = "cd pkg && env CI=1 npm publish"
    result = hooks.fire_sync("PreToolUse", tool_name="Bash", tool_input={{"command": command}})
    assert result.decision == "deny", result
    assert "published by CI" in result.reason


def test_guard_lets_harmless_commands_through():
    result = hooks.fire_sync("PreToolUse", tool_name="Bash", tool_input={{"command": "ls -la"}})
    assert result.decision == "none", result


def test_every_prompt_gets_the_house_rules():
    result = hooks.fire_sync("UserPromptSubmit", prompt="fix the failing test")
    assert result.context == "Run the tests before you commit.", result


AGENTS = [  # `hookd install --agent AGENT`
    "claude", "codex", "gemini", "copilot", "qwen", "opencode", "kilo", "pi", "droid", "cline",
]


@pytest.mark.parametrize("agent", AGENTS)
def test_every_agent_is_refused_the_forbidden_command(agent):
    result = hooks.fire_sync(
        "PreToolUse", agent=agent, tool_name="Bash", tool_input={{"command": "rm -rf /"}}
    )
    assert result.decision == "deny", result
    # its deny: on stdout with exit 0 (Droid's: exit 2, the reason on stderr)
    assert result.encoded.stdout or result.encoded.exit_code == 2, result.encoded


@pytest.mark.parametrize("agent", AGENTS)
def test_every_agent_may_run_harmless_commands(agent):
    result = hooks.fire_sync(
        "PreToolUse", agent=agent, tool_name="Bash", tool_input={{"command": "ls -la"}}
    )
    assert result.decision == "none", result
    assert result.encoded.exit_code == 0 and not result.encoded.stdout, result.encoded
'''


def starter_files(path: Path, *, folder: bool) -> dict[Path, str]:
    """The files ``hookd new PATH`` writes, by path: the module first, then its test.

    ``folder``: PATH names a folder to write ``hooks.py`` in; else it names the module.
    """
    module = path / "hooks.py" if folder else path.with_name(path.name.removesuffix(".py") + ".py")
    tests = _outside_dot_folders(module.parent)
    relative = module.relative_to(tests).as_posix()
    return {
        module: HOOKS.format(name=module.as_posix()),
        tests / f"test_{module.stem}.py": TEST.format(name=module.name, module=relative),
    }


def _outside_dot_folders(folder: Path) -> Path:
    """``folder``, or its part before the first dot-folder (pytest does not look inside)."""
    parts = folder.parts
    for i, part in enumerate(parts):
        if part.startswith(".") and part not in (".", ".."):
            return Path(*parts[:i]) if i else Path()
    return folder


def add_new_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``new`` subcommand to a ``hookd`` subparsers object."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "new",
        help="write a starter hooks module and a passing test for it",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "path", nargs="?", default=".", metavar="PATH", help="folder or module file (default: .)"
    )
    p.add_argument("--force", action="store_true", help="overwrite files that exist")
    return p


def _write(files: dict[Path, str]) -> None:
    """Write the starter files, never through a link (:mod:`hookd.nofollow`): a link where one
    goes is refused before either is written; ``--force`` replaces a file by renaming a new
    one over it."""
    from hookd.nofollow import check_target, replace_file

    for path in files:
        check_target(path, private_folder=False)
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_file(path, text.encode(), 0o644, private_folder=False)


def new_main(args: argparse.Namespace) -> int:
    """Write the starter files; exit status 0, or 1 when one exists (without --force)."""
    path = Path(args.path)
    folder = path.is_dir() or args.path.endswith(("/", os.sep)) or path.name.startswith(".")
    files = starter_files(path, folder=folder)
    taken = [str(p) for p in files if p.exists() or p.is_symlink()]
    if taken and not args.force:
        verb = "exists" if len(taken) == 1 else "exist"
        print(
            f"hookd new: error: {' and '.join(taken)} already {verb} (use --force to overwrite)",
            file=sys.stderr,
        )
        return 1
    try:
        _write(files)
    except OSError as exc:  # a LinkError too: named in its own words
        said = f"{exc.filename}: {exc.strerror}" if exc.filename else str(exc)
        print(f"hookd new: error: {said}", file=sys.stderr)
        return 1
    module, test = files
    print(f"wrote {module} and {test}")
    print(f"next: run `hookd test {test}`, edit {module} and its tests; then guard Claude "
          f"Code with `hookd install {module}` (other agents: add --agent "
          f"{', '.join(OTHER_AGENTS)} or all)")  # fmt: skip
    if importlib.util.find_spec("pytest") is None:
        from hookd.cli.pytest_runner import install_hint

        print(f"pytest is not installed beside hookd: run {install_hint()}")
    return 0
