"""A misspelt command or schema name is one line naming the closest one there is."""

from __future__ import annotations

import pytest

from tests.cli.console import hookd


@pytest.mark.req("R-U01")
@pytest.mark.parametrize(
    ("typed", "meant"),
    [("isntall", "install"), ("statsu", "status"), ("sreve", "serve"), ("wahtif", "whatif")],
)
def test_a_misspelt_command_names_the_closest(typed: str, meant: str) -> None:
    done = hookd(typed, "hooks.py")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        f"hookd: error: no command {typed!r} (did you mean {meant!r}?); `hookd --help` lists them\n"
    )


@pytest.mark.req("R-U01")
def test_a_command_nothing_like_any_is_one_line_too() -> None:
    done = hookd("frobnicate")
    assert done.returncode == 2
    assert done.stderr == "hookd: error: no command 'frobnicate'; `hookd --help` lists them\n"


@pytest.mark.req("R-U01")
def test_a_misspelt_schema_names_the_closest() -> None:
    done = hookd("schema", "PreToolUs")
    assert done.returncode == 2
    assert done.stderr == (
        "hookd schema: no schema 'PreToolUs' (did you mean 'events/PreToolUse.input' or "
        "'events/PreToolUse.output'?); `hookd schema` lists them\n"
    )
    close = hookd("schema", "events/PreToolUse.inptu")
    assert "(did you mean 'events/PreToolUse.input'?)" in close.stderr
    assert hookd("schema", "events/PreToolUse.input").returncode == 0
