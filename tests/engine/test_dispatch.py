"""``hooks/dispatch``: on the fake clock, over the server, and in the real process."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import msgspec
import pytest
import trio
import trio.testing

from hookd import HookAbortError, HookContext, HookMatcher, Registry
from hookd.core.loader import load_hooks
from hookd.core.registration import RegistrationError
from hookd.engine.call import HookCall
from hookd.engine.kernel import Kernel as Handler
from hookd.engine.verdict import Verdict
from hookd.events.validation import validate_output
from hookd.serve.config import ServeConfig
from tests.peer import error, event_input, hookd_process, payload, pre_tool_use, served

Seen = list[tuple[dict[str, Any], str | None, HookContext]]


def returning(
    output: dict[str, Any] | None = None, *, sleep_s: float = 0.0, seen: Seen | None = None
) -> Any:
    """A trio hook that records what it got, sleeps, then returns ``output``."""

    async def hook(input_data: dict[str, Any], tool_use_id: str | None, ctx: HookContext) -> Any:
        if seen is not None:
            seen.append((copy.deepcopy(input_data), tool_use_id, ctx))
        await trio.sleep(sleep_s)
        return output

    return hook


async def hang(input_data: dict[str, Any], tool_use_id: str | None, ctx: HookContext) -> Any:
    await trio.sleep_forever()


async def raises(input_data: dict[str, Any], tool_use_id: str | None, ctx: HookContext) -> Any:
    raise ValueError("broken hook")


async def aborts(input_data: dict[str, Any], tool_use_id: str | None, ctx: HookContext) -> Any:
    raise HookAbortError("policy violation")


def registry(event: str, *matchers: HookMatcher) -> Registry:
    reg = Registry()
    for m in matchers:
        reg.add_matcher(event, m)
    return reg


async def run(reg: Registry, event: str, input_data: dict[str, Any], **kw: Any) -> Verdict:
    """Dispatch without output validation; the merged output must still be valid."""
    result = await Handler(reg, validate=False).handle(HookCall(event, input_data, **kw))
    assert result is not None
    assert validate_output(event, result.output) is None
    return result


def context(text: str, event: str = "PreToolUse") -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def rewrite(tool_input: dict[str, Any], decision: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"hookEventName": "PreToolUse", "updatedInput": tool_input}
    if decision is not None:
        out["permissionDecision"] = decision
    return {"hookSpecificOutput": out}


def ids(result: Verdict) -> list[str]:
    return [h.callback_id for h in result.hooks]


# ----------------------------------------------------------------------------- selection


@pytest.mark.req("R-401")
async def test_no_matching_hook_answers_an_empty_output() -> None:
    """No selected hook, empty answer."""
    reg = registry("PreToolUse", HookMatcher(matcher="Bash", hooks=[returning(context("x"))]))
    for event, input_data in [
        ("PreToolUse", pre_tool_use("Edit")),
        ("Stop", event_input("Stop")),
        ("NoSuchEvent", {}),
    ]:
        result = await run(reg, event, input_data)
        assert result.to_wire() == {"output": {}, "hooks": []}


# (event, input, matcher -> selected?)
SELECTION: list[tuple[str, dict[str, Any], dict[str | None, bool]]] = [
    (
        "PreToolUse",
        pre_tool_use("mcp__github__create_issue"),
        {None: True, "*": True, "": True, "mcp__.*": True, "mcp__github": False, "Bash": False},
    ),
    (
        "PostToolUse",
        pre_tool_use("Edit", hook_event_name="PostToolUse", tool_response={}),
        {"Edit|Write": True, "Write": False, "^Ed": True, "it$": True, "edit": False},
    ),
    (
        "SessionStart",
        event_input("SessionStart", source="resume"),
        {"startup": False, "resume|clear": True, "*": True, "res": False},
    ),
    (
        "PreCompact",
        event_input("PreCompact", trigger="manual", custom_instructions=None),
        {"manual": True, "auto": False},
    ),
    (
        "Notification",
        event_input("Notification", message="m", notification_type="idle_prompt"),
        {"idle_prompt": True, "permission_prompt": False, "idle_.*": True},
    ),
    ("Stop", event_input("Stop", stop_hook_active=False), {"Bash": True, "startup": True}),
]


@pytest.mark.parametrize(("event", "input_data", "cases"), SELECTION)
@pytest.mark.req("R-402")
async def test_matchers_select_by_the_events_field(
    event: str, input_data: dict[str, Any], cases: dict[str | None, bool]
) -> None:
    """Each event matches its own field; matcher-less events run every hook."""
    reg = registry(event, *[HookMatcher(matcher=m, hooks=[returning()]) for m in cases])
    result = await run(reg, event, input_data)
    expected = [f"hook_{i + 1}" for i, hit in enumerate(cases.values()) if hit]
    assert ids(result) == expected


@pytest.mark.req("R-402")
def test_an_invalid_regex_is_refused_when_registered() -> None:
    """An invalid regex never reaches a dispatch: registering it fails, naming the matcher."""
    reg = Registry()
    with pytest.raises(RegistrationError, match=r"'Bash\[' is not a valid regular expression"):
        reg.add_matcher("PreToolUse", HookMatcher(matcher="Bash[", hooks=[returning({})]))
    assert len(reg) == 0


# ------------------------------------------------------------------------------ running


@pytest.mark.req("R-403", "R-404", "R-408")
async def test_parallel_hooks_merge_in_registration_order_not_finish_order(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Hooks run in parallel; records and merge follow registration order."""
    reg = registry(
        "Notification",
        HookMatcher(hooks=[returning({"systemMessage": "first"}, sleep_s=2)]),
        HookMatcher(hooks=[returning({"systemMessage": "second"}, sleep_s=1)]),
    )
    start = trio.current_time()
    result = await run(reg, "Notification", event_input("Notification", message="m"))
    assert trio.current_time() - start == 2  # in parallel: the longest, not the sum
    assert result.output == {"systemMessage": "first\nsecond"}
    assert [(h.callback_id, h.outcome, h.elapsed_ms) for h in result.hooks] == [
        ("hook_1", "ok", 2000.0),
        ("hook_2", "ok", 1000.0),
    ]
    assert [h.output for h in result.hooks] == [
        {"systemMessage": "first"},
        {"systemMessage": "second"},
    ]
    assert not result.sequential


@pytest.mark.req("R-403", "R-409")
async def test_a_sequential_group_chains_rewrites_in_declared_order(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Sequential hooks see the rewritten input; the chain is recorded."""
    seen: Seen = []
    reg = registry(
        "PreToolUse",
        HookMatcher(
            matcher="Bash",
            sequential=True,
            hooks=[
                returning(rewrite({"command": "ls -a"}), sleep_s=1, seen=seen),
                returning(context("no rewrite here"), sleep_s=1, seen=seen),
                returning(rewrite({"command": "ls -a -l", "timeout": 5}, "allow"), seen=seen),
            ],
        ),
    )
    start = trio.current_time()
    result = await run(reg, "PreToolUse", pre_tool_use("Bash"))
    assert trio.current_time() - start == 2  # one after another
    assert [s[0]["tool_input"] for s in seen] == [
        {"command": "ls"},
        {"command": "ls -a"},
        {"command": "ls -a"},
    ]
    assert result.output == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "updatedInput": {"command": "ls -a -l", "timeout": 5},
            "additionalContext": "no rewrite here",
            "permissionDecision": "allow",
        }
    }
    assert result.to_wire()["chain"] == [
        {"callback_id": "hook_1", "field": "tool_input", "changed": ["command"]},
        {"callback_id": "hook_3", "field": "tool_input", "changed": ["command", "timeout"]},
    ]
    assert result.sequential and "conflicts" not in result.to_wire()


@pytest.mark.req("R-403")
async def test_any_sequential_group_makes_the_whole_dispatch_sequential(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """One sequential group makes the whole dispatch sequential."""
    order: list[str] = []

    def note(name: str) -> Any:
        async def hook(input_data: dict[str, Any], tool_use_id: str | None, ctx: Any) -> Any:
            await trio.sleep(1)
            order.append(name)
            return {"systemMessage": name}

        return hook

    reg = registry(
        "Stop",
        HookMatcher(hooks=[note("a")]),
        HookMatcher(hooks=[note("b"), note("c")], sequential=True),
    )
    start = trio.current_time()
    result = await run(reg, "Stop", event_input("Stop", stop_hook_active=False))
    assert trio.current_time() - start == 3
    assert order == ["a", "b", "c"]
    assert result.output == {"systemMessage": "a\nb\nc"}
    assert "chain" not in result.to_wire()  # nothing rewritten


@pytest.mark.req("R-409")
async def test_parallel_rewrites_conflict_deny_and_name_both_hooks() -> None:
    """A guarded rewrite conflict denies, naming both hooks."""
    reg = registry(
        "PreToolUse",
        HookMatcher(matcher="Write", hooks=[returning(rewrite({"file_path": "/a"}, "allow"))]),
        HookMatcher(matcher="*", hooks=[returning(context("ctx"))]),
        HookMatcher(matcher="Write", hooks=[returning(rewrite({"file_path": "/b"}, "allow"))]),
    )
    result = await run(reg, "PreToolUse", pre_tool_use("Write"))
    specific = result.output["hookSpecificOutput"]
    assert "updatedInput" not in specific
    assert specific["permissionDecision"] == "deny"
    assert specific["permissionDecisionReason"].startswith(
        "hookd: conflicting rewrites: hookSpecificOutput.updatedInput from hook_1, hook_3"
    )
    assert specific["additionalContext"] == "ctx"
    assert result.to_wire()["conflicts"] == [
        {
            "field": "hookSpecificOutput.updatedInput",
            "callback_ids": ["hook_1", "hook_3"],
            "resolution": "denied",
        }
    ]
    assert result.hooks[0].output == rewrite({"file_path": "/a"}, "allow")  # each kept its own


async def test_permission_request_rewrite_conflict_denies() -> None:
    def allow_with(tool_input: dict[str, Any]) -> dict[str, Any]:
        decision = {"behavior": "allow", "updatedInput": tool_input}
        return {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}

    reg = registry(
        "PermissionRequest",
        HookMatcher(hooks=[returning(allow_with({"command": "a"}))]),
        HookMatcher(hooks=[returning(allow_with({"command": "b"}))]),
    )
    input_data = event_input("PermissionRequest", tool_name="Bash", tool_input={"command": "x"})
    result = await run(reg, "PermissionRequest", input_data)
    decision = result.output["hookSpecificOutput"]["decision"]
    assert decision["behavior"] == "deny" and "updatedInput" not in decision
    assert decision["message"].startswith("hookd: conflicting rewrites")
    assert [c.resolution for c in result.conflicts] == ["denied"]


async def test_unguarded_rewrite_conflicts_are_dropped_not_denied() -> None:
    def replace_output(value: str) -> dict[str, Any]:
        return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": value}}

    reg = registry(
        "PostToolUse",
        HookMatcher(hooks=[returning(replace_output("one"))]),
        HookMatcher(hooks=[returning(replace_output("two"))]),
    )
    input_data = pre_tool_use("Bash", hook_event_name="PostToolUse", tool_response="raw")
    result = await run(reg, "PostToolUse", input_data)
    assert result.output == {}
    assert [(c.field, c.resolution) for c in result.conflicts] == [
        ("hookSpecificOutput.updatedToolOutput", "dropped")
    ]


async def test_sequential_output_rewrites_chain_too() -> None:
    seen: Seen = []

    def replace_output(value: str) -> Any:
        out = {"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": value}}
        return returning(out, seen=seen)

    reg = registry(
        "PostToolUse",
        HookMatcher(hooks=[replace_output("one"), replace_output("two")], sequential=True),
    )
    input_data = pre_tool_use("Bash", hook_event_name="PostToolUse", tool_response="raw")
    result = await run(reg, "PostToolUse", input_data)
    assert [s[0]["tool_response"] for s in seen] == ["raw", "one"]
    assert result.output["hookSpecificOutput"]["updatedToolOutput"] == "two"
    assert [msgspec.to_builtins(s) for s in result.chain] == [
        {"callback_id": "hook_1", "field": "tool_response"},
        {"callback_id": "hook_2", "field": "tool_response"},
    ]


# ----------------------------------------------------------------------------- failures


@pytest.mark.req("R-403", "R-404", "R-406")
async def test_each_hook_keeps_its_own_timeout_and_failure_policy(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Own timeouts and failure policies; a blocking failure denies."""
    reg = registry(
        "PreToolUse",
        HookMatcher(hooks=[hang], timeout=2, on_failure="continue"),
        HookMatcher(hooks=[hang], timeout=5),  # PreToolUse blocks on failure by default
        HookMatcher(hooks=[returning(context("fast"))]),
    )
    start = trio.current_time()
    result = await run(reg, "PreToolUse", pre_tool_use("Bash"))
    assert trio.current_time() - start == pytest.approx(4.5, abs=0.05)
    timed_out, blocked, fast = result.hooks
    assert (timed_out.outcome, timed_out.output) == ("timeout", None)
    assert timed_out.elapsed_ms == pytest.approx(1800.0, abs=50)
    assert timed_out.error == "no answer within 1.8s"
    assert blocked.outcome == "blocked:timeout"
    assert blocked.elapsed_ms == pytest.approx(4500.0, abs=50)
    assert fast.outcome == "ok"
    specific = result.output["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny"
    assert specific["permissionDecisionReason"].startswith("hookd: hook hang timed out")
    assert specific["additionalContext"] == "fast"


@pytest.mark.req("R-404")
async def test_a_failed_continue_hook_contributes_nothing_but_is_reported() -> None:
    reg = registry(
        "Notification",
        HookMatcher(hooks=[raises]),
        HookMatcher(hooks=[returning({"systemMessage": "kept"})]),
    )
    result = await run(reg, "Notification", event_input("Notification", message="m"))
    assert result.output == {"systemMessage": "kept"}
    assert msgspec.to_builtins(result.hooks[0]) == {
        "callback_id": "hook_1",
        "outcome": "exception",
        "elapsed_ms": result.hooks[0].elapsed_ms,
        "error": "broken hook",
    }


@pytest.mark.req("R-405")
async def test_hook_abort_merges_as_continue_false() -> None:
    """HookAbortError merges as continue false."""
    reg = registry(
        "PreToolUse",
        HookMatcher(hooks=[returning({"continue": False, "stopReason": "quota"})]),
        HookMatcher(hooks=[aborts]),
        HookMatcher(hooks=[returning(context("ctx"))]),
    )
    result = await run(reg, "PreToolUse", pre_tool_use("Bash"))
    assert result.hooks[1].outcome == "aborted"
    assert result.output["continue"] is False
    assert result.output["stopReason"] == "quota\npolicy violation"
    assert result.output["hookSpecificOutput"] == {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "policy violation",
        "additionalContext": "ctx",
    }


async def test_an_unencodable_output_fails_only_its_hook() -> None:
    reg = registry(
        "Notification",
        HookMatcher(hooks=[returning({"systemMessage": object()})]),
        HookMatcher(hooks=[returning({"systemMessage": "fine"})]),
    )
    result = await run(reg, "Notification", event_input("Notification", message="m"))
    assert result.hooks[0].outcome == "invalid_output"
    assert result.output == {"systemMessage": "fine"}


# ------------------------------------------------------------------------------ context


@pytest.mark.req("R-401", "R-411")
async def test_hooks_get_ids_context_state_and_their_own_copy_of_the_input() -> None:
    """``tool_use_id`` defaults to the input's; context, state and input copies."""
    seen: Seen = []

    async def mutates(input_data: dict[str, Any], tool_use_id: str | None, ctx: Any) -> Any:
        input_data["tool_input"]["command"] = "rm -rf /"
        ctx.state["calls"] = ctx.state.get("calls", 0) + 1
        return None

    reg = registry(
        "PreToolUse", HookMatcher(hooks=[mutates]), HookMatcher(hooks=[returning(seen=seen)])
    )
    input_data = pre_tool_use("Bash")
    for _ in range(2):
        await run(reg, "PreToolUse", input_data, request_id="req_7")
    assert input_data == pre_tool_use("Bash")  # the caller's input is never touched
    got, tool_use_id, ctx = seen[0]
    assert got["tool_input"] == {"command": "ls"}
    assert tool_use_id == "toolu_1"  # taken from the input when not given
    assert (ctx.request_id, ctx.callback_id, ctx.event) == ("req_7", "hook_2", "PreToolUse")
    assert reg.session_state("s1") == {"calls": 2}
    await run(reg, "PreToolUse", input_data, tool_use_id="toolu_9")
    assert seen[-1][1] == "toolu_9"


@pytest.mark.req("R-403")
async def test_cancelling_a_dispatch_cancels_every_hook(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Cancellation reaches every hook still running."""
    seen: Seen = []
    reg = registry(
        "Stop",
        HookMatcher(hooks=[returning(seen=seen, sleep_s=10), returning(seen=seen, sleep_s=10)]),
    )
    with trio.move_on_after(1):
        await run(reg, "Stop", event_input("Stop", stop_hook_active=False))
    assert len(seen) == 2
    assert all(ctx.cancelled for _, _, ctx in seen)


# ------------------------------------------------------------------ over the wire

DISPATCH_HOOKS = str(Path(__file__).resolve().parents[1] / "hooks" / "dispatch_hooks.py")


def control_dispatch(
    request_id: str, event: str, input_data: dict[str, Any], tool_use_id: str | None = None
) -> dict[str, Any]:
    """A control-protocol ``hook_dispatch`` request."""
    request = {"subtype": "hook_dispatch", "event": event, "input": input_data}
    if tool_use_id is not None:
        request["tool_use_id"] = tool_use_id
    return {"type": "control_request", "request_id": request_id, "request": request}


def rpc_dispatch(request_id: int, event: str, input_data: dict[str, Any]) -> dict[str, Any]:
    """A JSON-RPC ``hooks/dispatch`` request."""
    params = {"event": event, "input": input_data}
    return {"jsonrpc": "2.0", "id": request_id, "method": "hooks/dispatch", "params": params}


def without_times(answer: dict[str, Any]) -> dict[str, Any]:
    """A dispatch answer with each hook's ``elapsed_ms`` checked and removed."""
    hooks = []
    for record in answer["hooks"]:
        assert isinstance(record.pop("elapsed_ms"), int | float)
        hooks.append(record)
    return answer | {"hooks": hooks}


BASH_ANSWER = {
    "output": {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "permissionDecisionReason": "looks safe",
            "additionalContext": "shell tool Bash (toolu_1)",
        }
    },
    "hooks": [
        {
            "callback_id": "hook_1",
            "outcome": "ok",
            "output": {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "allow",
                    "permissionDecisionReason": "looks safe",
                }
            },
        },
        {
            "callback_id": "hook_2",
            "outcome": "ok",
            "output": {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "additionalContext": "shell tool Bash (toolu_1)",
                }
            },
        },
    ],
}


@pytest.mark.req("R-401")
async def test_dispatch_in_both_framings_over_the_server() -> None:
    """``hook_dispatch`` and ``hooks/dispatch`` give the same answer."""
    async with served(load_hooks(DISPATCH_HOOKS)) as (peer, _):
        await peer.send(control_dispatch("d1", "PreToolUse", pre_tool_use("Bash"), "toolu_1"))
        await peer.send(rpc_dispatch(7, "PreToolUse", pre_tool_use("Bash")))
        got = await peer.recv_many(2)
        assert without_times(payload(got["d1"])) == BASH_ANSWER
        assert got[7]["jsonrpc"] == "2.0"
        assert without_times(got[7]["result"]) == BASH_ANSWER


@pytest.mark.req("R-401")
async def test_an_input_the_event_rejects_is_invalid_params() -> None:
    """With validation on, a bad input is an error and no hook runs."""
    bad = pre_tool_use("Bash")
    del bad["tool_input"]
    async with served(load_hooks(DISPATCH_HOOKS)) as (peer, _):
        await peer.send(
            control_dispatch("c", "PreToolUse", bad), rpc_dispatch(5, "PreToolUse", bad)
        )
        got = await peer.recv_many(2)
        text, code = error(got["c"])
        assert code == "invalid_params"
        assert "tool_input" in text
        assert got[5]["error"]["code"] == -32602
    async with served(load_hooks(DISPATCH_HOOKS), ServeConfig(validate=False)) as (peer, _):
        await peer.send(control_dispatch("c", "PreToolUse", bad))
        assert len(payload(await peer.recv())["hooks"]) == 2  # --no-validate: runs anyway


@pytest.mark.req("R-403")
async def test_a_cancelled_dispatch_is_never_answered(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """A withdrawn dispatch gets no answer."""
    async with served(load_hooks(DISPATCH_HOOKS)) as (peer, server):
        await peer.send(control_dispatch("slow", "PreToolUse", pre_tool_use("Order")))
        await peer.send({"type": "control_cancel_request", "request_id": "slow"})
        await peer.expect_silence(1)
        assert server.in_flight == 0


# ------------------------------------------------------------------ the real process


@pytest.mark.req("R-401", "R-402", "R-409")
async def test_dispatch_through_the_real_process() -> None:
    """Control and JSON-RPC dispatches through ``hookd serve``."""
    async with hookd_process("serve", DISPATCH_HOOKS) as (peer, _):
        await peer.send(control_dispatch("d1", "PreToolUse", pre_tool_use("Bash"), "toolu_1"))
        await peer.send(rpc_dispatch(2, "PreToolUse", pre_tool_use("Write")))
        await peer.send(
            rpc_dispatch(3, "SessionStart", event_input("SessionStart", source="clear"))
        )
        await peer.send(
            rpc_dispatch(4, "UserPromptSubmit", event_input("UserPromptSubmit", prompt="hi"))
        )
        got = await peer.recv_many(4, timeout=20)
        assert without_times(payload(got["d1"])) == BASH_ANSWER
        write = got[2]["result"]
        assert write["output"]["hookSpecificOutput"]["permissionDecision"] == "deny"
        assert write["conflicts"] == [
            {
                "field": "hookSpecificOutput.updatedInput",
                "callback_ids": ["hook_4", "hook_5"],
                "resolution": "denied",
            }
        ]
        assert without_times(got[3]["result"])["output"] == {
            "hookSpecificOutput": {
                "hookEventName": "SessionStart",
                "additionalContext": "welcome back",
            }
        }
        assert got[4]["result"] == {"output": {}, "hooks": []}
