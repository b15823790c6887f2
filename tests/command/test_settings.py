"""Claude Code settings files: per-entry checks, registrations, and serving them beside Python."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest

from hookd.command.hook import CommandHook
from hookd.command.settings_hooks import SettingsError, load_settings, project_dir
from hookd.core.loader import load_hooks
from hookd.core.registry import Registration, Registry, RetryPolicy
from hookd.serve.config import ServeConfig
from tests.peer import error, event_input, hook_request, payload, pre_tool_use, served

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = Path(__file__).resolve().parents[1] / "commands"
BASIC = str(Path(__file__).resolve().parents[1] / "hooks" / "basic.py")
NO_VALIDATION = ServeConfig(validate=False)


def write(path: Path, settings: Any) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings) if not isinstance(settings, str) else settings)
    return str(path)


def command(text: str, **extra: Any) -> dict[str, Any]:
    return {"type": "command", "command": text, **extra}


def hook_of(reg: Registration) -> CommandHook:
    assert isinstance(reg.callback, CommandHook)
    return reg.callback


def single(handler: Any, event: str = "PreToolUse") -> dict[str, Any]:
    return {"hooks": {event: [{"matcher": "Bash", "hooks": [handler]}]}}


# ----------------------------------------------------------- one bad entry at a time

BAD_HANDLERS: list[tuple[str, Any, str]] = [
    ("http", {"type": "http", "url": "http://x"}, 'hook type "http" is not supported'),
    ("prompt", {"type": "prompt", "prompt": "ok?"}, 'hook type "prompt" is not supported'),
    ("agent", {"type": "agent", "prompt": "check"}, 'hook type "agent" is not supported'),
    ("mcp_tool", {"type": "mcp_tool", "tool": "t"}, 'hook type "mcp_tool" is not supported'),
    ("unknown-type", {"type": "wasm"}, 'unknown hook type "wasm"; skipped'),
    ("no-type", {"command": "x"}, 'missing "type"; skipped'),
    ("not-an-object", "echo hi", "expected a handler object, got a string; skipped"),
    ("no-command", {"type": "command"}, "object missing required field `command`; skipped"),
    ("empty-command", command(""), ".command: expected `str` of length >= 1; skipped"),
    ("timeout-string", command("x", timeout="5"), ".timeout: expected `float | null`, got `str`"),
    ("timeout-zero", command("x", timeout=0), ".timeout: expected `float` > 0.0; skipped"),
    ("shell", command("x", shell="powershell"), ".shell: invalid enum value 'powershell'"),
    ("on-failure", command("x", onFailure="ignore"), ".onFailure: invalid enum value 'ignore'"),
    ("retry-field", command("x", retry={"tries": 2}), ".retry: object contains unknown field"),
    ("retry-code-0", command("x", retry={"exitCodes": [0]}), ".retry.exitCodes[0]: expected `int`"),
    ("retry-attempts", command("x", retry={"attempts": 0}), ".retry.attempts: expected `int` >= 1"),
    ("if", command("x", **{"if": "Bash(git *)"}), '"if" not supported by hookd; skipped'),
    ("async", command("x", **{"async": True}), '"async" not supported by hookd; skipped'),
    ("once", command("x", once=True, asyncRewake=True), '"asyncRewake", "once" not supported'),
]


@pytest.mark.parametrize(
    ("handler", "message"), [r[1:] for r in BAD_HANDLERS], ids=[r[0] for r in BAD_HANDLERS]
)
def test_a_bad_entry_is_named_and_skipped_and_the_others_load(
    tmp_path: Path, handler: Any, message: str
) -> None:
    """R-303: one bad entry, named by path; the others load."""
    hooks = [command("first"), handler, command("last")]
    path = write(tmp_path / "s.json", {"hooks": {"PreToolUse": [{"hooks": hooks}]}})
    registry = Registry()
    warnings = load_settings([path], registry)
    assert len(warnings) == 1
    assert warnings[0].startswith(f"{path}: hooks.PreToolUse[0].hooks[1]")
    assert message in warnings[0]
    assert [hook_of(r).command for r in registry.registrations()] == ["first", "last"]


GROUP_PROBLEMS: list[tuple[str, Any, str]] = [
    ("hooks-not-object", {"hooks": []}, ": hooks: expected an object, got an array; skipped"),
    ("no-hooks", {"permissions": {}}, ': no "hooks" section'),
    (
        "disabled",
        {"disableAllHooks": True, "hooks": {"Stop": [{"hooks": [command("x")]}]}},
        ": disableAllHooks is true: no hooks loaded from this file",
    ),
    (
        "event-not-list",
        {"hooks": {"Stop": {"hooks": []}}},
        ": hooks.Stop: expected a list of matcher groups, got an object; skipped",
    ),
    (
        "group-not-object",
        {"hooks": {"Stop": ["x"]}},
        ": hooks.Stop[0]: expected a matcher group object, got a string; skipped",
    ),
    (
        "matcher-number",
        {"hooks": {"Stop": [{"matcher": 3, "hooks": [command("x")]}]}},
        ": hooks.Stop[0]: matcher must be a string, got a number; skipped",
    ),
    (
        "matcher-bad-regex",
        {"hooks": {"PreToolUse": [{"matcher": "mcp__(", "hooks": [command("x")]}]}},
        ": hooks.PreToolUse[0]: matcher 'mcp__(' is not a valid regular expression: "
        "missing ), unterminated subpattern at position 5; skipped",
    ),
    (
        "handlers-not-list",
        {"hooks": {"Stop": [{"hooks": {"type": "command"}}]}},
        ': hooks.Stop[0]: "hooks" must be a list of handlers, got an object; skipped',
    ),
    (
        "unknown-field",
        single(command("x", colour="red")),
        ': hooks.PreToolUse[0].hooks[0]: unknown field "colour" ignored',
    ),
    (
        "retry-without-codes",
        single(command("x", retry={"attempts": 2})),
        ': hooks.PreToolUse[0].hooks[0]: retry has no "exitCodes": the command is never retried',
    ),
    (
        "typo-event",
        {"hooks": {"PreToolUs": [{"hooks": [command("x")]}]}},
        ": hooks.PreToolUs: unknown event 'PreToolUs' "
        "(did you mean 'PreToolUse'?); registered anyway",
    ),
]


@pytest.mark.parametrize(
    ("settings", "message"), [r[1:] for r in GROUP_PROBLEMS], ids=[r[0] for r in GROUP_PROBLEMS]
)
def test_file_and_group_problems_are_reported(tmp_path: Path, settings: Any, message: str) -> None:
    """R-303."""
    path = write(tmp_path / "s.json", settings)
    assert load_settings([path], Registry()) == [path + message]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON: "),
        ("[1, 2]", "expected a JSON object, got an array"),
        (None, "cannot read: No such file or directory"),
    ],
    ids=["invalid-json", "not-an-object", "missing"],
)
def test_an_unusable_file_raises(tmp_path: Path, content: str | None, message: str) -> None:
    """R-302."""
    path = tmp_path / "settings.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(SettingsError, match=rf"^{path}: {message}"):
        load_settings([str(path)], Registry())


# ----------------------------------------------------------- registrations


def test_entries_become_registrations_with_their_options(tmp_path: Path) -> None:
    """R-301, R-304: one registration per handler, with its options."""
    retry = {"attempts": 4, "backoff": 0.5, "multiplier": 3, "maxBackoff": 5, "exitCodes": [75]}
    settings = {
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [command("a", timeout=5), command("b")]},
                {"hooks": [command("c", retry=retry, onFailure="continue", statusMessage="c")]},
            ],
            "Stop": [{"matcher": "*", "hooks": [command("run", args=["x y"], shell="bash")]}],
        }
    }
    path = write(tmp_path / ".claude" / "settings.local.json", settings)
    registry = Registry(default_timeout_s=12)
    assert load_settings([path], registry) == []
    a, b, c, run = registry.registrations()
    assert [(r.callback_id, r.event, r.matcher, r.timeout_s) for r in (a, b, c, run)] == [
        ("hook_1", "PreToolUse", "Bash", 5),
        ("hook_2", "PreToolUse", "Bash", 600),  # Claude Code's default, not --timeout
        ("hook_3", "PreToolUse", None, 600),
        ("hook_4", "Stop", "*", 600),
    ]
    assert (a.on_failure, c.on_failure, run.on_failure) == ("block", "continue", "continue")
    assert {r.runner for r in (a, b, c, run)} == {"trio"}
    policy = RetryPolicy(4, 0.5, 3, 5, frozenset({75}))
    assert c.retry == policy and hook_of(c).retry == policy
    assert hook_of(a).argv == ["sh", "-c", "a"]
    assert hook_of(run).argv == ["run", "x y"]
    assert hook_of(a).project_dir == str(tmp_path)
    assert a.name == "command `a`"
    assert registry.hooks_map()["PreToolUse"][0] == {
        "matcher": "Bash",
        "hookCallbackIds": ["hook_1"],
        "timeout": 5,
        "onFailure": "block",
    }


def test_bash_shell(tmp_path: Path) -> None:
    """R-304."""
    path = write(tmp_path / "s.json", single(command("echo $BASH_VERSION", shell="bash")))
    registry = Registry()
    load_settings([path], registry)
    assert hook_of(registry.registrations()[0]).argv == ["bash", "-c", "echo $BASH_VERSION"]


def test_project_dir_is_the_parent_of_dot_claude(tmp_path: Path) -> None:
    """R-306."""
    assert project_dir(tmp_path / ".claude" / "settings.json") == str(tmp_path)
    assert project_dir(tmp_path / "hookd.json") is None


def test_the_same_handler_in_several_files_is_registered_once(tmp_path: Path) -> None:
    """R-303."""
    user = write(tmp_path / "user.json", single(command("./lint.sh")))
    project = write(tmp_path / "project.json", single(command("./lint.sh", timeout=9)))
    other = write(tmp_path / "other.json", single(command("./lint.sh"), event="PostToolUse"))
    registry = Registry()
    warnings = load_settings([user, project, other], registry)
    assert warnings == [
        f"{project}: hooks.PreToolUse[0].hooks[0]: same command as "
        f"{user}: hooks.PreToolUse[0].hooks[0] (hook_1); registered once"
    ]
    assert [r.event for r in registry.registrations()] == ["PreToolUse", "PostToolUse"]


def test_ids_continue_after_the_python_hooks(tmp_path: Path) -> None:
    """R-301."""
    registry = load_hooks(BASIC)
    before = len(registry)
    path = write(tmp_path / "s.json", single(command("x")))
    load_settings([path], registry)
    assert registry.registrations()[-1].callback_id == f"hook_{before + 1}"


# ----------------------------------------------------------- served beside Python hooks


def script(name: str, *args: str | int) -> str:
    return " ".join([str(COMMANDS / name), *(f"'{a}'" for a in args)])


MIXED = {
    "hooks": {
        "PreToolUse": [
            {"matcher": "Read", "hooks": [command(script("exit_with.sh", 0))]},
            {"matcher": "Bash", "hooks": [command(script("exit_with.sh", 2, "", "no rm -rf"))]},
            {
                "matcher": "Write",
                "hooks": [
                    command(
                        script(
                            "exit_with.sh",
                            0,
                            '{"hookSpecificOutput": {"hookEventName": "PreToolUse",'
                            ' "permissionDecision": "ask"}}',
                        )
                    )
                ],
            },
            {"matcher": "WebFetch", "hooks": [{"type": "http", "url": "http://policy"}]},
        ],
        "PostToolUse": [{"hooks": [command(script("exit_with.sh", 1, "", "linter crashed"))]}],
        "UserPromptSubmit": [{"hooks": [command('"$CLAUDE_PROJECT_DIR"/.claude/hooks/branch.sh')]}],
        "Stop": [{"hooks": [command("sleep 30", timeout=1)]}],
    }
}


async def test_settings_served_beside_python_hooks(tmp_path: Path) -> None:
    """R-301, R-310, R-312: allow, block, crash, hang, JSON and text beside Python hooks."""
    branch = tmp_path / ".claude" / "hooks" / "branch.sh"
    write(branch, '#!/bin/sh\necho "on branch main in $(basename "$CLAUDE_PROJECT_DIR")"\n')
    branch.chmod(branch.stat().st_mode | stat.S_IXUSR)
    path = write(tmp_path / ".claude" / "settings.json", MIXED)
    registry = load_hooks(BASIC)
    warnings = load_settings([path], registry)
    assert warnings == [
        f'{path}: hooks.PreToolUse[3].hooks[0]: hook type "http" is not supported by hookd '
        '(only "command"); skipped'
    ]
    ids = {r.matcher or r.event: r.callback_id for r in registry.registrations()[-6:]}
    cwd = {"cwd": "/"}
    requests = {
        "python": hook_request("python", "hook_2", pre_tool_use()),
        "allow": hook_request("allow", ids["Read"], pre_tool_use("Read", **cwd)),
        "block": hook_request("block", ids["Bash"], pre_tool_use(**cwd)),
        "json": hook_request("json", ids["Write"], pre_tool_use("Write", **cwd)),
        "crash": hook_request("crash", ids["PostToolUse"], event_input("PostToolUse", **cwd)),
        "text": hook_request("text", ids["UserPromptSubmit"], event_input("UserPromptSubmit")),
        "hang": hook_request("hang", ids["Stop"], event_input("Stop", stop_hook_active=False)),
    }
    async with served(registry, NO_VALIDATION) as (peer, _):
        await peer.send(*requests.values())
        got = await peer.recv_many(len(requests))
    assert payload(got["python"])["hookSpecificOutput"]["permissionDecision"] == "allow"
    assert payload(got["allow"]) == {}
    assert payload(got["block"])["hookSpecificOutput"] == {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "no rm -rf",
    }
    assert payload(got["json"])["hookSpecificOutput"]["permissionDecision"] == "ask"
    assert payload(got["crash"])["systemMessage"].endswith("(exit code 1): linter crashed")
    assert payload(got["text"])["hookSpecificOutput"]["additionalContext"] == (
        f"on branch main in {tmp_path.name}"
    )
    assert error(got["hang"]) == ("no answer within 0.9s", "hook_timeout")


# ----------------------------------------------------------- the example file


async def test_the_example_settings_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """R-301: examples/settings.json loads cleanly and its guard works."""
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    registry = Registry()
    assert load_settings([str(ROOT / "examples" / "settings.json")], registry) == []
    guard = next(r for r in registry.registrations() if r.matcher == "Bash")
    prompt = next(r for r in registry.registrations() if r.event == "UserPromptSubmit")
    assert hook_of(guard).project_dir is None
    cwd = {"cwd": str(ROOT)}
    rm = pre_tool_use(tool_input={"command": "rm -rf /"}, **cwd)
    async with served(registry, NO_VALIDATION) as (peer, _):
        await peer.send(
            hook_request("rm", guard.callback_id, rm),
            hook_request("ls", guard.callback_id, pre_tool_use(**cwd)),
            hook_request("prompt", prompt.callback_id, event_input("UserPromptSubmit", **cwd)),
        )
        got = await peer.recv_many(3)
    reason = payload(got["rm"])["hookSpecificOutput"]["permissionDecisionReason"]
    assert reason == "refusing a recursive delete of / or ~"
    assert payload(got["ls"]) == {}
    context = payload(got["prompt"])["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("Current git branch: ")
