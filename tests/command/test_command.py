"""Command hooks as real processes: the event x exit-code table, env, timeouts, retries."""

from __future__ import annotations

import json
import os
import select
import shlex
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import structlog.testing
import trio
import trio.testing

from hookd import custom_event
from hookd.command.hook import CommandHook, add_command
from hookd.command.result import Finished
from hookd.core.context import HookContext
from hookd.core.policy import Outcome
from hookd.core.registry import Registry, RetryPolicy
from hookd.engine.executor import Executor
from hookd.events import EVENTS as CATALOGUE
from hookd.serve.config import ServeConfig
from tests.peer import error, event_input, hook_request, payload, pre_tool_use, served

COMMANDS = Path(__file__).resolve().parents[1] / "commands"
NO_VALIDATION = ServeConfig(validate=False)


def script(name: str, *args: str | int | Path) -> str:
    """A shell command line running ``tests/commands/<name>`` with ``args``."""
    return shlex.join([str(COMMANDS / name), *map(str, args)])


async def answer(registry: Registry, callback_id: str, input_data: dict[str, Any]) -> Any:
    """Serve ``registry`` and return its answer to one hook_callback."""
    async with served(registry, NO_VALIDATION) as (peer, _):
        await peer.send(hook_request("r", callback_id, input_data))
        return await peer.recv()


async def run_command(event: str, command: str, **options: Any) -> Any:
    registry = Registry()
    name = event if event in CATALOGUE else custom_event(event)
    reg = add_command(registry, name, command, **options)
    return await answer(registry, reg.callback_id, event_input(event))


# ----------------------------------------------------------- the exit-code table
#
# One row per event and exit status, each a real `sh` process. What exit 2 does
# on each event (Claude Code's table):

DENY = "deny"  # PreToolUse-style permissionDecision deny
BLOCK = "block"  # top-level decision block + reason
DECLINE = "decline"  # Elicitation action decline
FAIL = "fail"  # the hook fails: an error answer
SHOW = "show"  # systemMessage only

EXIT_2_BY_EVENT = {
    "PreToolUse": DENY,
    "PreModelSwitch": DENY,
    "UserPromptSubmit": BLOCK,
    "UserPromptExpansion": BLOCK,
    "PostToolUse": BLOCK,
    "PostToolUseFailure": BLOCK,
    "PostToolBatch": BLOCK,
    "Stop": BLOCK,
    "SubagentStop": BLOCK,
    "TeammateIdle": BLOCK,
    "TaskCreated": BLOCK,
    "TaskCompleted": BLOCK,
    "ConfigChange": BLOCK,
    "PreCompact": BLOCK,
    "Elicitation": DECLINE,
    "ElicitationResult": DECLINE,
    "WorktreeCreate": FAIL,
    "PermissionRequest": SHOW,
    "PermissionDenied": SHOW,
    "StopFailure": SHOW,
    "Notification": SHOW,
    "SessionStart": SHOW,
    "SessionEnd": SHOW,
    "Setup": SHOW,
    "SubagentStart": SHOW,
    "CwdChanged": SHOW,
    "FileChanged": SHOW,
    "DirectoryAdded": SHOW,
    "PostCompact": SHOW,
    "WorktreeRemove": SHOW,
    "InstructionsLoaded": SHOW,
    "MessageDisplay": SHOW,
    "PostModelSwitch": SHOW,
    "SomeFutureEvent": SHOW,
}
TEXT_FIELD = {
    "UserPromptSubmit": "additionalContext",
    "UserPromptExpansion": "additionalContext",
    "SessionStart": "additionalContext",
    "WorktreeCreate": "worktreePath",
}
EVENTS = list(EXIT_2_BY_EVENT)


def expect_exit_2(event: str, reason: str) -> Any:
    match EXIT_2_BY_EVENT[event]:
        case "deny":
            specific = {"permissionDecision": "deny", "permissionDecisionReason": reason}
            return {"hookSpecificOutput": {"hookEventName": event, **specific}}
        case "block":
            return {"decision": "block", "reason": reason}
        case "decline":
            return {
                "hookSpecificOutput": {"hookEventName": event, "action": "decline"},
                "systemMessage": reason,
            }
        case "fail":
            return ("error", reason)
        case _:
            return {"systemMessage": reason}


def expect_text(event: str, text: str) -> Any:
    field = TEXT_FIELD.get(event)
    return {"hookSpecificOutput": {"hookEventName": event, field: text}} if field else {}


def expect_failure(event: str, message: str) -> Any:
    return ("error", message) if EXIT_2_BY_EVENT[event] == FAIL else {"systemMessage": message}


# (name, exit_with.sh arguments, expected answer for an event and the command's label)
ROWS: list[tuple[str, tuple[str | int, ...], Callable[[str, str], Any]]] = [
    ("exit0-text", (0, "  some context\n", "noise"), lambda e, _: expect_text(e, "some context")),
    (
        "exit0-json",
        (0, '{"systemMessage": "from json", "continue": false}\n', ""),
        lambda e, _: {"systemMessage": "from json", "continue": False},
    ),
    (
        "exit2",
        (2, '{"decision": "ignored"}', "too dangerous\n"),
        lambda e, _: expect_exit_2(e, "too dangerous"),
    ),
    (
        "exit1",
        (1, "ignored", "it broke\n"),
        lambda e, cmd: expect_failure(e, f"hook command `{cmd}` failed (exit code 1): it broke"),
    ),
]


def _shown(msg: dict[str, Any]) -> Any:
    """A success payload, or ("error", text) for an error answer."""
    if msg["response"]["subtype"] == "error":
        text, code = error(msg)
        assert code == "hook_execution_error"
        return ("error", text)
    return payload(msg)


@pytest.mark.parametrize("event", EVENTS)
@pytest.mark.parametrize(("row", "args", "expected"), ROWS, ids=[r[0] for r in ROWS])
async def test_exit_code_table(
    event: str, row: str, args: tuple[str | int, ...], expected: Callable[[str, str], Any]
) -> None:
    """R-308, R-310: one row per event and exit status, a real process each."""
    exe, argv = str(COMMANDS / "exit_with.sh"), [str(a) for a in args]
    msg = await run_command(event, exe, args=argv)
    assert _shown(msg) == expected(event, CommandHook(exe, args=argv).label)


# ----------------------------------------------------------- edges of the table

#: One event for each kind of exit-2 effect.
KINDS = ["PreToolUse", "Stop", "Elicitation", "WorktreeCreate", "Notification"]


@pytest.mark.parametrize("event", KINDS)
async def test_exit_0_without_output_is_an_empty_answer(event: str) -> None:
    """R-308: empty stdout is an empty answer; stderr only logged."""
    msg = await run_command(event, script("exit_with.sh", 0, "", "debug noise"))
    assert _shown(msg) == {}


@pytest.mark.parametrize("event", KINDS)
async def test_exit_2_without_stderr_still_has_a_reason(event: str) -> None:
    """R-308, R-310: exit 2 with an empty stderr names the command."""
    command = script("exit_with.sh", 2)
    msg = await run_command(event, command)
    reason = f"blocked by hook command `{CommandHook(command).label}` (exit code 2)"
    assert _shown(msg) == expect_exit_2(event, reason)


@pytest.mark.parametrize("event", KINDS)
@pytest.mark.parametrize(
    ("command", "how"),
    [
        ("exit 3", "failed (exit code 3)"),
        ("no-such-command-hookd", "failed (exit code 127, command not found): sh: 1: "),
        (str(COMMANDS), "failed (exit code 126, not executable): sh: 1: "),
        ("exec " + script("exit_with.sh", -9), "was killed by SIGKILL"),
    ],
    ids=["exit3", "exit127", "exit126", "signal"],
)
async def test_other_exits_are_non_blocking_errors(event: str, command: str, how: str) -> None:
    """R-308, R-309: other statuses and signals never block (WorktreeCreate fails)."""
    shown = _shown(await run_command(event, command))
    prefix = f"hook command `{CommandHook(command).label}` {how}"
    if EXIT_2_BY_EVENT[event] == FAIL:
        assert shown[0] == "error" and shown[1].startswith(prefix)
    else:
        assert shown["systemMessage"].startswith(prefix)


@pytest.mark.parametrize("event", KINDS)
@pytest.mark.parametrize(
    ("options", "what"),
    [
        ({"args": []}, "No such file or directory: /nonexistent/hook"),
        ({"command": "echo \0"}, "embedded null byte"),
    ],
    ids=["missing-executable", "nul-byte"],
)
async def test_a_command_that_cannot_start_is_a_non_blocking_error(
    event: str, options: dict[str, Any], what: str
) -> None:
    """R-308, R-309: failing to start is a non-blocking error."""
    options = dict(options)
    command = options.pop("command", "/nonexistent/hook")
    cwd = options.pop("cwd", "/tmp")
    registry = Registry()
    reg = add_command(registry, event, command, **options)
    msg = await answer(registry, reg.callback_id, event_input(event, cwd=cwd))
    expected = f"hook command `{CommandHook(command).label}` could not start: "
    shown = _shown(msg)
    text = shown[1] if EXIT_2_BY_EVENT[event] == FAIL else shown["systemMessage"]
    assert text.startswith(expected) and text.endswith(what)


async def test_stdout_that_looks_like_json_must_be_json() -> None:
    """R-308, R-312: stdout starting with '{' must parse."""
    msg = await run_command("Stop", script("exit_with.sh", 0, "{not json"))
    text, code = error(msg)
    assert code == "invalid_output"
    assert text.startswith("stdout starts with '{' but is not JSON: ")


async def test_stdout_and_stderr_are_capped() -> None:
    """R-305, R-308: 1 MiB (here 100 bytes) kept of each stream."""
    big = "head -c 3000000 /dev/zero | tr '\\0' x"
    registry = Registry()
    loud = registry.add("Stop", CommandHook(big, max_output_bytes=100))
    noisy = registry.add("Stop", CommandHook(f"{big} >&2; exit 1", max_output_bytes=100))
    async with served(registry, NO_VALIDATION) as (peer, _):
        stop = event_input("Stop", stop_hook_active=False)
        await peer.send(hook_request("a", loud.callback_id, stop))
        await peer.send(hook_request("b", noisy.callback_id, stop))
        got = await peer.recv_many(2)
    assert error(got["a"]) == ("stdout is longer than 100 bytes", "invalid_output")
    assert payload(got["b"])["systemMessage"].endswith("(exit code 1): " + "x" * 100)


async def test_input_the_command_does_not_read_is_fine() -> None:
    """R-305."""
    registry = Registry()
    reg = add_command(registry, "Stop", "exit 0")
    msg = await answer(registry, reg.callback_id, event_input("Stop", blob="x" * 2_000_000))
    assert payload(msg) == {}


# ----------------------------------------------------------- what the command sees


def _report(msg: dict[str, Any]) -> dict[str, str]:
    context = payload(msg)["hookSpecificOutput"]["additionalContext"]
    return dict(line.split("=", 1) for line in context.splitlines())


async def test_input_on_stdin_env_and_cwd(tmp_path: Path) -> None:
    """R-305, R-306: input on stdin, run in the input's cwd, HOOKD_* set."""
    registry = Registry()
    reg = add_command(registry, "UserPromptSubmit", script("report.sh"))
    prompt = event_input("UserPromptSubmit", prompt="hi 'there'", cwd=str(tmp_path))
    seen = _report(await answer(registry, reg.callback_id, prompt))
    assert seen == {
        "stdin": json.dumps(prompt, separators=(",", ":")),
        "cwd": str(tmp_path),
        "project": str(tmp_path),
        "event": "UserPromptSubmit",
        "callback": reg.callback_id,
        "attempt": "1",
        "args": "",
    }


async def test_project_dir_and_exec_form(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """R-304, R-306: project dir given or inherited; args run without a shell."""
    registry = Registry()
    exe = str(COMMANDS / "report.sh")
    given = add_command(registry, "SessionStart", exe, args=["a b", "c"], project_dir="/proj")
    inherited = add_command(registry, "SessionStart", exe, args=[])
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", "/from/env")
    start = event_input("SessionStart", source="startup", cwd=str(tmp_path))
    first = _report(await answer(registry, given.callback_id, start))
    second = _report(await answer(registry, inherited.callback_id, start))
    assert (first["project"], first["args"]) == ("/proj", "a b c")
    assert (second["project"], second["cwd"]) == ("/from/env", str(tmp_path))


# ----------------------------------------------------------- timeouts kill the tree


class Fifo:
    """A named pipe the test reads lines from, while commands write to it."""

    def __init__(self, path: Path) -> None:
        os.mkfifo(path)
        self.path = str(path)
        self._stream = trio.lowlevel.FdStream(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
        self._writer = os.open(path, os.O_WRONLY | os.O_NONBLOCK)  # no EOF between writers
        self._buf = b""

    async def line(self, timeout: float = 10) -> str:
        with trio.fail_after(timeout):
            while b"\n" not in self._buf:
                self._buf += await self._stream.receive_some(4096)
        line, self._buf = self._buf.split(b"\n", 1)
        return line.decode()

    async def aclose(self) -> None:
        os.close(self._writer)
        await self._stream.aclose()


@pytest.fixture
async def fifo(tmp_path: Path) -> AsyncIterator[Fifo]:
    pipe = Fifo(tmp_path / "fifo")
    yield pipe
    await pipe.aclose()


def _exited(pidfd: int) -> bool:
    return bool(select.select([pidfd], [], [], 0)[0])


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="waits on pidfds (Linux)")
async def test_timeout_kills_the_whole_group_term_then_kill(fifo: Fifo) -> None:
    """R-307: SIGTERM is ignored here, so SIGKILL ends the group."""
    registry = Registry()
    hook = CommandHook(script("ignore_term.sh", fifo.path), grace_s=0.5)
    reg = registry.add("Stop", hook, timeout=0.5)
    async with served(registry, NO_VALIDATION) as (peer, _):
        await peer.send(hook_request("h", reg.callback_id, event_input("Stop")))
        pidfds = [os.pidfd_open(int(pid)) for pid in (await fifo.line()).split()]
        try:
            assert error(await peer.recv()) == ("no answer within 0.45s", "hook_timeout")
            assert not any(map(_exited, pidfds)), "SIGTERM is ignored: alive until SIGKILL"
            with trio.fail_after(10):
                for pidfd in pidfds:
                    await trio.lowlevel.wait_readable(pidfd)
        finally:
            for pidfd in pidfds:
                os.close(pidfd)


@pytest.mark.parametrize("how", ["timeout", "cancel"])
async def test_a_stopped_command_gets_sigterm_first(fifo: Fifo, how: str) -> None:
    """R-307: a timeout or a cancel sends SIGTERM to the group."""
    registry = Registry()
    reg = registry.add("Stop", CommandHook(script("trap_term.sh", fifo.path)), timeout=0.5)
    async with served(registry, NO_VALIDATION) as (peer, _):
        await peer.send(hook_request("h", reg.callback_id, event_input("Stop")))
        assert await fifo.line() == "ready"
        if how == "cancel":
            await peer.send({"type": "control_cancel_request", "request_id": "h"})
        else:
            assert error(await peer.recv())[1] == "hook_timeout"
        assert await fifo.line() == "term"


# ----------------------------------------------------------- retries


class FakeSpawn:
    """Stands in for the process runner: exits with ``codes`` in turn, on the fake clock."""

    def __init__(self, *codes: int) -> None:
        self.codes = list(codes)
        self.calls: list[tuple[float, str]] = []

    async def __call__(self, argv: list[str], **kw: Any) -> Finished:
        self.calls.append((trio.current_time(), kw["env"]["HOOKD_ATTEMPT"]))
        await trio.sleep(0.25)  # the command's own run time
        code = self.codes.pop(0)
        return Finished(code, b'{"systemMessage": "done"}' if code == 0 else b"", b"busy")


async def run_fake(
    spawn: FakeSpawn, retry: RetryPolicy | None, timeout: float | None = None
) -> Outcome:
    registry = Registry()
    reg = registry.add(
        "Stop", CommandHook("flaky", retry=retry, spawn=spawn), retry=retry, timeout=timeout
    )
    ctx = HookContext(
        request_id="r",
        callback_id=reg.callback_id,
        event=reg.event,
        tool_use_id=None,
        timeout_s=reg.timeout_s,
        state={},
    )
    return await Executor(validate=False).run(reg, event_input("Stop"), None, ctx)


POLICY = RetryPolicy(attempts=3, backoff_s=1, multiplier=2, exit_codes=frozenset({75}))


async def test_retries_on_configured_exit_codes(autojump_clock: trio.testing.MockClock) -> None:
    """R-311, R-313: retried with backoff; every attempt logged."""
    runner = FakeSpawn(75, 75, 0)
    with structlog.testing.capture_logs() as logs:
        outcome = await run_fake(runner, POLICY)
    assert (outcome.kind, outcome.output) == ("ok", {"systemMessage": "done"})
    assert runner.calls == [(0, "1"), (1.25, "2"), (3.5, "3")]  # 0.25 s runs, 1 s and 2 s waits
    exits = [e["attempt"] for e in logs if e["event"] == "command.exited"]
    retries = [e["attempt"] for e in logs if e["event"] == "hook.retrying"]
    assert (exits, retries) == ([1, 2, 3], [1, 2])


async def test_the_last_attempt_is_answered_by_the_table(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """R-311."""
    runner = FakeSpawn(75, 75, 75)
    outcome = await run_fake(runner, POLICY)
    assert outcome.output == {"systemMessage": "hook command `flaky` failed (exit code 75): busy"}
    assert len(runner.calls) == 3


@pytest.mark.parametrize(
    ("codes", "retry"),
    [((1,), POLICY), ((2,), POLICY), ((75,), None)],
    ids=["other-code", "exit2", "no-policy"],
)
async def test_nothing_is_retried_implicitly(
    autojump_clock: trio.testing.MockClock, codes: tuple[int, ...], retry: RetryPolicy | None
) -> None:
    """R-311."""
    runner = FakeSpawn(*codes)
    await run_fake(runner, retry)
    assert len(runner.calls) == 1


async def test_retries_stay_inside_the_deadline(autojump_clock: trio.testing.MockClock) -> None:
    """R-311, R-312."""
    policy = RetryPolicy(attempts=100, backoff_s=1, multiplier=1, exit_codes=frozenset({75}))
    runner = FakeSpawn(*[75] * 100)
    outcome = await run_fake(runner, policy, timeout=5)
    assert outcome.kind == "timeout"
    assert trio.current_time() == pytest.approx(4.5)
    assert len(runner.calls) == 4  # at 0, 1.25, 2.5 and 3.75


async def test_retries_with_a_real_process(tmp_path: Path) -> None:
    """R-311: a real script that fails twice, then succeeds."""
    counter = tmp_path / "runs"
    policy = RetryPolicy(attempts=3, backoff_s=0.01, exit_codes=frozenset({75}))
    registry = Registry()
    reg = add_command(registry, "Stop", script("flaky.sh", counter, 2, 75), retry=policy)
    msg = await answer(registry, reg.callback_id, event_input("Stop"))
    assert payload(msg) == {"systemMessage": "run 3"}
    assert counter.read_text() == "3\n"


# ----------------------------------------------------------- answers pass validation


@pytest.mark.parametrize("event", [e for e in EVENTS if e != "SomeFutureEvent"])
def test_the_table_answers_are_valid_outputs(event: str) -> None:
    """R-310: every answer of the table passes the event's schema."""
    validation = pytest.importorskip("hookd.events.validation")
    answers = [
        expect_exit_2(event, "reason"),
        expect_text(event, "text"),
        expect_failure(event, "m"),
    ]
    for output in answers:  # an error answer (a tuple) or {} has nothing to validate
        if isinstance(output, dict) and output:
            validation.prepare_output(event, output)


async def test_a_background_child_holding_stdout_holds_the_hook() -> None:
    """R-305: finished means exited and both pipes closed."""
    msg = await run_command("Stop", "sleep 30 & echo started", timeout=0.5)
    assert error(msg) == ("no answer within 0.45s", "hook_timeout")


# ----------------------------------------------------------- failures follow the policy

VALID_INPUTS = {"PreToolUse": pre_tool_use(), "Stop": event_input("Stop", stop_hook_active=False)}
BAD_PERMISSION = """printf '{"hookSpecificOutput": {"hookEventName": "PreToolUse",
 "permissionDecision": "maybe"}}'"""


@pytest.mark.parametrize(
    ("event", "command", "options", "expected"),
    [
        ("PreToolUse", BAD_PERMISSION, {}, ("deny", "returned an invalid output: ")),
        ("Stop", """printf '{"decision": "nope"}'""", {}, ("error", "invalid_output")),
        ("PreToolUse", "sleep 30", {"timeout": 0.5}, ("deny", "timed out: ")),
        (
            "PreToolUse",
            "sleep 30",
            {"timeout": 0.5, "on_failure": "continue"},
            ("error", "hook_timeout"),
        ),
    ],
    ids=["invalid-json-blocks", "invalid-json-errors", "timeout-blocks", "timeout-continues"],
)
async def test_failures_follow_the_failure_policy(
    event: str, command: str, options: dict[str, Any], expected: tuple[str, str]
) -> None:
    """R-312: invalid outputs and timeouts are hook failures, as for Python callbacks."""
    pytest.importorskip("hookd.events.validation")
    registry = Registry()
    reg = add_command(registry, event, command, **options)
    async with served(registry) as (peer, _):
        await peer.send(hook_request("r", reg.callback_id, VALID_INPUTS[event]))
        msg = await peer.recv()
    kind, text = expected
    if kind == "error":
        assert error(msg)[1] == text
    else:
        specific = payload(msg)["hookSpecificOutput"]
        assert specific["permissionDecision"] == "deny"
        assert text in specific["permissionDecisionReason"]


def test_every_known_event_has_a_row_in_the_exit_code_table() -> None:
    """R-310: the table covers hookd's event catalogue, no more and no less."""
    from hookd.command.exit_code import EXIT_2
    from hookd.events import EVENTS

    assert set(EXIT_2) == set(EVENTS) == set(EXIT_2_BY_EVENT) - {"SomeFutureEvent"}


@pytest.mark.req("R-124")
@pytest.mark.parametrize("cwd", ["/nonexistent", "relative/dir", "", 42, "/tmp/\0x"])
async def test_a_cwd_from_the_wire_is_used_only_when_it_is_an_existing_directory(
    cwd: object, tmp_path: Path
) -> None:
    """The input's cwd is untrusted: anything but an existing absolute directory is ignored."""
    registry = Registry()
    add_command(registry, "SessionStart", "pwd", project_dir=str(tmp_path))
    msg = await answer(registry, "hook_1", event_input("SessionStart", source="startup", cwd=cwd))
    assert _shown(msg)["hookSpecificOutput"]["additionalContext"] == str(tmp_path)
