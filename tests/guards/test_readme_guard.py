"""The README's "Guarding shell commands": its module of your own rule, run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import hookd.testing

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def section() -> str:
    start = README.index("\n## Guarding shell commands\n")
    return README[start : README.index("\n## ", start + 1)]


@pytest.mark.req("R-G08")
def test_the_rule_of_your_own_runs_beside_the_guard(tmp_path: Path) -> None:
    (block,) = re.findall(r"```python\n(.*?)```", section(), re.S)
    (tmp_path / "hooks.py").write_text(block)
    hooks = hookd.testing.load(str(tmp_path / "hooks.py"))

    def fire(command: str) -> hookd.testing.FireResult:
        return hooks.fire_sync("PreToolUse", tool_name="Bash", tool_input={"command": command})

    mine = fire("cd infra && sudo terraform destroy -auto-approve")
    assert mine.decision == "deny" and "destroyed by CI only" in (mine.reason or "")
    theirs = fire("bash -c 'rm -r -f ~'")
    assert theirs.decision == "deny" and (theirs.reason or "").startswith("rm-recursive")
    assert fire("terraform plan && echo 'terraform destroy'").decision == "none"


def test_the_first_module_of_the_readme_is_the_three_lines() -> None:
    first = README[README.index("## Use it with Claude Code") :]
    module = re.findall(r"```python\n(.*?)```", first, re.S)[0]
    shipped = (Path(__file__).resolve().parents[1] / "hooks" / "destructive_guard.py").read_text()
    assert module == shipped
