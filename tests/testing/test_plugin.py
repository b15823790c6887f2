"""The pytest plugin: registered by installing hookd, cheap to import, fine with any async plugin.

Each case is a small project of its own, tested by a separate pytest process:
under pytest-trio, under pytest-asyncio, and with no async plugin at all.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.testing.project import run_pytest, write

GUARD = str(Path(__file__).resolve().parent.parent / "hooks" / "kit_guard.py")

TESTS = f"""
    import hookd.testing

    GUARD = {GUARD!r}

    def test_sync():
        hooks = hookd.testing.load(GUARD)
        result = hooks.fire_sync("PreToolUse", tool_input={{"command": "rm -rf /"}})
        assert result.decision == "deny"

    def test_fixture(hookd_hooks):
        hooks = hookd_hooks(GUARD)
        assert hooks.fire_sync("PreToolUse", tool_name="Edit").decision == "deny"
"""


def passed(done: subprocess.CompletedProcess[str], count: int) -> None:
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{count} passed" in done.stdout, done.stdout


@pytest.mark.req("R-708")
def test_installing_hookd_registers_the_plugin() -> None:
    from importlib.metadata import entry_points

    (plugin,) = [e for e in entry_points(group="pytest11") if e.name == "hookd"]
    assert plugin.value == "hookd.testing.plugin"


@pytest.mark.req("R-708")
def test_the_plugin_imports_nothing_heavy() -> None:
    probe = (
        "import sys, hookd.testing.plugin; "
        "heavy = [m for m in ('trio', 'structlog', 'msgspec', 'jsonschema', 'hookd.engine', "
        "'hookd.core', 'hookd.events') if m in sys.modules]; print(heavy)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"


@pytest.mark.req("R-708")
def test_under_pytest_trio(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pytest.ini": "[pytest]\ntrio_mode = true\n",
            "test_sync.py": TESTS,
            "test_trio.py": f"""
                import trio
                import hookd.testing

                async def test_fire_under_trio(autojump_clock):
                    hooks = hookd.testing.load({GUARD!r})
                    result = await hooks.fire("PreToolUse", tool_name="Write")
                    assert result.reason == "hookd: hook slow timed out: no answer within 4.5s"
                    assert trio.current_time() >= 4.5
                """,
        },
    )
    passed(run_pytest(tmp_path, "-p", "no:asyncio"), 3)


@pytest.mark.req("R-708")
def test_under_pytest_asyncio(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pytest.ini": (
                "[pytest]\nasyncio_mode = strict\nasyncio_default_fixture_loop_scope = function\n"
            ),
            "test_sync.py": TESTS,
            "test_asyncio.py": f"""
                import asyncio
                import pytest
                import hookd.testing

                @pytest.mark.asyncio
                async def test_fire_under_asyncio():
                    hooks = hookd.testing.load({GUARD!r})
                    result = await hooks.fire("PreToolUse", tool_input={{"command": "sudo ls"}})
                    assert result.decision == "ask"
                    asyncio.get_running_loop()  # still on the test's own loop
                """,
        },
    )
    passed(run_pytest(tmp_path, "-p", "no:trio"), 3)


@pytest.mark.req("R-708")
def test_with_no_async_plugin(tmp_path: Path) -> None:
    write(tmp_path, {"pytest.ini": "[pytest]\n", "test_sync.py": TESTS})
    passed(run_pytest(tmp_path, "-p", "no:trio", "-p", "no:asyncio", "-p", "no:anyio"), 2)
