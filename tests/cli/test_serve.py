"""``hookd serve`` from the console script: piped requests, EOF, deadlines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.console import answers, hookd, lines, module
from tests.peer import event_input, hook_request, pre_tool_use

SDK_HOOKS = """
    import asyncio
    import threading
    import time

    import hookd
    from hookd import HookMatcher

    async def on_asyncio(input_data, tool_use_id, context):
        await asyncio.sleep(0.3)
        return {"systemMessage": "asyncio"}

    def in_thread(input_data, tool_use_id, context):
        time.sleep(0.3)
        worker = threading.current_thread() is not threading.main_thread()
        return {"systemMessage": f"thread {worker}"}

    @hookd.runs_on("trio")
    async def on_trio(input_data, tool_use_id, context):
        import trio
        await trio.sleep(0.3)
        return {"systemMessage": "trio"}

    def stuck(input_data, tool_use_id, context):
        threading.Event().wait()

    hooks = {
        "Stop": [
            HookMatcher(hooks=[on_asyncio]),
            HookMatcher(hooks=[in_thread]),
            HookMatcher(hooks=[on_trio]),
            HookMatcher(hooks=[stuck], timeout=1),
        ]
    }
"""


@pytest.mark.req("R-100")
def test_piped_requests_are_answered_on_every_runner_before_exit(tmp_path: Path) -> None:
    """`echo REQUEST | hookd serve hooks.py`: EOF waits for the hooks in flight."""
    hooks = module(tmp_path / "sdk_hooks.py", SDK_HOOKS)
    stop = event_input("Stop", stop_hook_active=False)
    stdin = lines(*(hook_request(f"r{i}", f"hook_{i}", stop) for i in (1, 2, 3, 4)))
    proc = hookd("serve", hooks, stdin=stdin)
    assert proc.returncode == 0, proc.stderr
    got = answers(proc.stdout)
    assert got["r1"]["response"] == {"systemMessage": "asyncio"}
    assert got["r2"]["response"] == {"systemMessage": "thread True"}
    assert got["r3"]["response"] == {"systemMessage": "trio"}
    # a hook that never ends is answered at its deadline (Stop continues on failure)
    assert (got["r4"]["subtype"], got["r4"]["error_code"]) == ("error", "hook_timeout")


FAILING = """
    from hookd import HookMatcher

    def lookup(key):
        return {"a": 1}[key]

    async def guard(input_data, tool_use_id, context):
        return lookup("b")

    def can_use_tool(tool_name, tool_input, context):
        raise ValueError("no permission store")

    hooks = {"PreToolUse": [HookMatcher(hooks=[guard])]}
"""

PERMISSION = {
    "type": "control_request",
    "request_id": "p1",
    "request": {"subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": "ls"}},
}


def test_tracebacks_on_a_terminal_are_readable_and_show_user_frames_only(tmp_path: Path) -> None:
    hooks = module(tmp_path / "failing.py", FAILING)
    stdin = lines(hook_request("r1", "hook_1", pre_tool_use()), PERMISSION)
    proc = hookd("serve", hooks, "--log-format", "console", stdin=stdin)
    assert set(answers(proc.stdout)) == {"r1", "p1"}
    err = proc.stderr
    assert "\\n" not in err  # real line breaks, not escaped ones
    assert f'  File "{hooks}", line 8, in guard\n' in err
    assert f'  File "{hooks}", line 5, in lookup\n' in err
    assert "KeyError: 'b'\n" in err
    assert f'  File "{hooks}", line 11, in can_use_tool\n' in err  # with its traceback
    assert "ValueError: no permission store\n" in err
    for machinery in ("/hookd/", "/trio/", "/outcome/", "/asyncio/"):
        assert machinery not in err.replace(hooks, ""), err


def test_tracebacks_in_json_logs_stay_one_line_each_with_user_frames(tmp_path: Path) -> None:
    hooks = module(tmp_path / "failing.py", FAILING)
    stdin = lines(hook_request("r1", "hook_1", pre_tool_use()), PERMISSION)
    proc = hookd("serve", hooks, "--log-format", "json", stdin=stdin)
    logs = [json.loads(line) for line in proc.stderr.splitlines()]
    raised, permission = [log for log in logs if log["msg"] == "hook.raised"]
    assert raised["traceback"].startswith("Traceback (most recent call last):\n  File ")
    assert "/hookd/" not in raised["traceback"].replace(hooks, "")
    assert permission["callback_id"] == "can_use_tool"  # run as a hook, logged as one
    assert "in can_use_tool" in permission["traceback"]


BUSY = """
    import time

    import hookd
    from hookd import HookMatcher

    @hookd.runs_on("trio")
    async def spin(input_data, tool_use_id, context):
        end = time.monotonic() + 30
        while time.monotonic() < end:  # never awaits: holds the event loop
            pass

    def quick(input_data, tool_use_id, context):
        return {"systemMessage": "ran"}

    hooks = {"Stop": [HookMatcher(hooks=[spin], timeout=1), HookMatcher(hooks=[quick], timeout=1)]}
"""


@pytest.mark.req("R-128")
def test_deadlines_run_from_arrival_whatever_other_hooks_do(tmp_path: Path) -> None:
    """A request read while a hook spins is answered by its own deadline, not one started late.

    Both requests are read together; the spinning hook holds the loop until the watchdog
    stops it at its deadline, which is also the quick hook's: so the quick one is answered
    as a timeout at once, not run for another full timeout.
    """
    hooks = module(tmp_path / "busy.py", BUSY)
    stop = event_input("Stop", stop_hook_active=False)
    stdin = lines(hook_request("spin", "hook_1", stop), hook_request("quick", "hook_2", stop))
    proc = hookd("serve", hooks, "--log-format", "json", stdin=stdin)
    got = answers(proc.stdout)
    assert (got["spin"]["error_code"], got["quick"]["error_code"]) == ("hook_timeout",) * 2
    assert got["quick"]["error"] == "no answer within 0.9s"


WAITED = """
    import time

    import hookd
    from hookd import HookMatcher

    @hookd.runs_on("trio")
    async def hold(input_data, tool_use_id, context):
        time.sleep(0.5)  # holds the event loop without awaiting
        return {}

    def left(input_data, tool_use_id, context):
        return {"systemMessage": f"{context.time_left():.3f}"}

    hooks = {"Stop": [HookMatcher(hooks=[hold], timeout=10), HookMatcher(hooks=[left], timeout=10)]}
"""


@pytest.mark.req("R-128")
def test_the_context_deadline_runs_from_arrival_too(tmp_path: Path) -> None:
    """A hook that waited behind another sees the time left since its request was read."""
    hooks = module(tmp_path / "waited.py", WAITED)
    stop = event_input("Stop", stop_hook_active=False)
    stdin = lines(hook_request("hold", "hook_1", stop), hook_request("left", "hook_2", stop))
    proc = hookd("serve", hooks, "--log-format", "json", stdin=stdin)
    got = answers(proc.stdout)
    assert got["hold"]["response"] == {}
    left = float(got["left"]["response"]["systemMessage"])
    assert left <= 10 - 0.5  # both requests were read before the wait
