"""Bad input: one `hookd CMD: error: ...` line and a non-zero exit, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.console import hookd, module, one_line_error

HOOKS = """
    from hookd import HookMatcher

    async def guard(input_data, tool_use_id, context):
        return None

    hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard])]}
"""


def test_demo_with_a_missing_module(tmp_path: Path) -> None:
    proc = hookd("demo", "--hooks", "nope.py", cwd=tmp_path)
    assert one_line_error(proc, "demo") == "hookd demo: error: nope.py: no such file"


def test_demo_with_a_syntax_error(tmp_path: Path) -> None:
    module(tmp_path / "broken.py", "def guard(:\n")
    proc = hookd("demo", "--hooks", "broken.py", cwd=tmp_path)
    assert one_line_error(proc, "demo") == "hookd demo: error: broken.py:1: syntax error: " + (
        "invalid syntax"
    )


def test_schema_write_to_an_unwritable_place(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    proc = hookd("schema", "--write", str(tmp_path / "file" / "schemas"))
    line = one_line_error(proc, "schema")
    assert line.startswith(f"hookd schema: error: cannot write schemas under {tmp_path}/file/")


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--max-line-bytes", "0", "must be a whole number of bytes from 1 to 68719476736, not '0'"),
        ("--max-in-flight", "0", "must be a whole number from 1 to 1000000000, not '0'"),
        (
            "--max-in-flight-bytes",
            "-5",
            "must be a whole number of bytes from 1 to 68719476736, not '-5'",
        ),
        ("--max-in-flight", "many", "must be a whole number from 1 to 1000000000, not 'many'"),
        ("--timeout", "0", "must be a number of seconds above 0 and at most 86400, not '0'"),
        ("--timeout", "nan", "must be a number of seconds above 0 and at most 86400, not 'nan'"),
    ],
)
def test_serve_refuses_impossible_limits_at_parse_time(
    tmp_path: Path, option: str, value: str, message: str
) -> None:
    hooks = module(tmp_path / "hooks.py", HOOKS)
    proc = hookd("serve", hooks, option, value)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert one_line_error(proc, "serve") == f"hookd serve: error: argument {option}: {message}"


@pytest.mark.parametrize(
    ("words", "usage", "hint"),
    [
        (("install", "--fail-closed", "hooks.py"), "usage: hookd install", "--fail-open"),
        (("serve", "--htp", "127.0.0.1:0"), "usage: hookd serve", "--http"),
        (("status", "--jsn"), "usage: hookd status", "--json"),
    ],
)
def test_a_misspelt_flag_shows_its_commands_usage_and_the_closest_flag(
    tmp_path: Path, words: tuple[str, ...], usage: str, hint: str
) -> None:
    proc = hookd(*words, cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith(usage)
    last = proc.stderr.strip().splitlines()[-1]
    assert last == (
        f"hookd {words[0]}: error: unrecognized arguments: {words[1]} (did you mean {hint}?)"
    )


def test_a_misspelt_schema_name_gets_the_closest() -> None:
    proc = hookd("schema", "events/PreToolUze.output")
    assert proc.returncode == 2
    assert "(did you mean 'events/PreToolUse.output'?)" in proc.stderr
