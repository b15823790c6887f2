"""Merge rules, row by row, on plain outputs (ids are the positions ``0``, ``1``, ...)."""

from __future__ import annotations

from itertools import permutations
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookd.engine.merge import RULES, Conflict, Vote, merge
from hookd.events.validation import validate_output


def merge_outputs(event: str, outputs: list[dict[str, Any]]) -> dict[str, Any]:
    """Merge plain outputs in parallel mode, naming them by position."""
    return merge(event, [Vote(str(i), o) for i, o in enumerate(outputs)]).output


def hso(event: str, **fields: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, **fields}}


PLAN = {"type": "setMode", "mode": "plan", "destination": "session"}
DIRS = {"type": "addDirectories", "directories": ["/srv"], "destination": "session"}

# (rule, event, outputs in registration order, merged output)
ROWS: list[tuple[str, str, list[dict[str, Any]], dict[str, Any]]] = [
    (
        "continue false wins; the stopReasons of its hooks are joined",
        "Stop",
        [
            {"continue": True, "stopReason": "not stopping"},
            {"continue": False, "stopReason": "budget spent"},
            {},
            {"continue": False, "stopReason": "policy"},
        ],
        {"continue": False, "stopReason": "budget spent\npolicy"},
    ),
    ("continue false without a reason", "Stop", [{"continue": False}, {}], {"continue": False}),
    ("continue true everywhere is the default", "Stop", [{"continue": True}], {}),
    (
        "decision block wins over none, its reason names the hook",
        "Stop",
        [{}, {"decision": "block", "reason": "run the tests"}],
        {"decision": "block", "reason": "run the tests"},
    ),
    (
        "decision block wins over approve",
        "PreToolUse",
        [{"decision": "approve", "reason": "fine"}, {"decision": "block", "reason": "no"}],
        {"decision": "block", "reason": "no"},
    ),
    (
        "every blocking hook is named, in registration order",
        "SubagentStop",
        [{"decision": "block", "reason": "a"}, {"systemMessage": "x"}, {"decision": "block"}],
        {"decision": "block", "reason": "0: a\n2", "systemMessage": "x"},
    ),
    (
        "additionalContext values are all kept, in registration order",
        "PostToolUse",
        [
            hso("PostToolUse", additionalContext="lint: 2 warnings"),
            {},
            hso("PostToolUse", additionalContext="tests: ok"),
        ],
        hso("PostToolUse", additionalContext="lint: 2 warnings\ntests: ok"),
    ),
    (
        "systemMessage values are all kept, in registration order",
        "Notification",
        [{"systemMessage": "b"}, {"systemMessage": "a"}],
        {"systemMessage": "b\na"},
    ),
    (
        "suppressOutput is true if any hook says so",
        "PostToolUse",
        [{"suppressOutput": False}, {"suppressOutput": True}],
        {"suppressOutput": True},
    ),
    (
        "watchPaths are united",
        "SessionStart",
        [hso("SessionStart", watchPaths=["a", "b"]), hso("SessionStart", watchPaths=["b", "c"])],
        hso("SessionStart", watchPaths=["a", "b", "c"]),
    ),
    (
        "retry is true if any hook says so",
        "PermissionDenied",
        [hso("PermissionDenied", retry=False), hso("PermissionDenied", retry=True)],
        hso("PermissionDenied", retry=True),
    ),
    (
        "async output is dropped: a merged answer is never async",
        "PostToolUse",
        [{"async": True, "asyncTimeout": 5000}, {"systemMessage": "done"}],
        {"systemMessage": "done"},
    ),
    (
        "a single-valued field set alike by several hooks is kept",
        "SessionStart",
        [hso("SessionStart", sessionTitle="T"), {}, hso("SessionStart", sessionTitle="T")],
        hso("SessionStart", sessionTitle="T"),
    ),
    (
        "hookEventName is filled in",
        "PreToolUse",
        [{"hookSpecificOutput": {"additionalContext": "x"}}],
        hso("PreToolUse", additionalContext="x"),
    ),
    (
        "an empty hookSpecificOutput is left out",
        "PreToolUse",
        [hso("PreToolUse"), {"systemMessage": "m"}],
        {"systemMessage": "m"},
    ),
    (
        "elicitation: decline > cancel > accept",
        "Elicitation",
        [hso("Elicitation", action="accept"), hso("Elicitation", action="decline")],
        hso("Elicitation", action="decline"),
    ),
    (
        "PermissionRequest: deny beats allow, the message names the hook, allow fields go",
        "PermissionRequest",
        [
            hso("PermissionRequest", decision={"behavior": "allow", "updatedInput": {"a": 1}}),
            hso(
                "PermissionRequest",
                decision={"behavior": "deny", "message": "no", "interrupt": True},
            ),
        ],
        hso(
            "PermissionRequest",
            decision={"behavior": "deny", "message": "no", "interrupt": True},
        ),
    ),
    (
        "PermissionRequest: allows merge their permission updates",
        "PermissionRequest",
        [
            hso("PermissionRequest", decision={"behavior": "allow", "updatedPermissions": [PLAN]}),
            hso("PermissionRequest", decision={"behavior": "allow", "updatedPermissions": [DIRS]}),
            hso("PermissionRequest", decision={"behavior": "allow", "updatedPermissions": [PLAN]}),
        ],
        hso(
            "PermissionRequest", decision={"behavior": "allow", "updatedPermissions": [PLAN, DIRS]}
        ),
    ),
    ("no outputs, no fields", "Stop", [], {}),
]


@pytest.mark.parametrize(
    ("event", "outputs", "expected"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS]
)
@pytest.mark.req("R-405", "R-406", "R-407", "R-408", "R-410")
def test_merge_rule(event: str, outputs: list[dict[str, Any]], expected: dict[str, Any]) -> None:
    """One row of the merge table each."""
    assert merge_outputs(event, outputs) == expected


DECISIONS = ["deny", "defer", "ask", "allow"]  # most restrictive first


@pytest.mark.parametrize(("first", "second"), list(permutations(DECISIONS, 2)))
@pytest.mark.req("R-406")
def test_permission_decision_most_restrictive_wins_with_its_own_reason(
    first: str, second: str
) -> None:
    """Deny > defer > ask > allow, in either order."""
    outputs = [
        hso("PreToolUse", permissionDecision=first, permissionDecisionReason=f"why {first}"),
        hso("PreToolUse", permissionDecision=second, permissionDecisionReason=f"why {second}"),
    ]
    winner = min(first, second, key=DECISIONS.index)
    assert merge_outputs("PreToolUse", outputs) == hso(
        "PreToolUse",
        permissionDecision=winner,
        permissionDecisionReason=f"why {winner}",
    )


def test_permission_decision_names_every_hook_that_took_it() -> None:
    votes = [
        Vote("hook_2", hso("PreToolUse", permissionDecision="deny", permissionDecisionReason="a")),
        Vote("hook_3", hso("PreToolUse", permissionDecision="allow", permissionDecisionReason="b")),
        Vote("hook_5", hso("PreToolUse", permissionDecision="deny")),
    ]
    merged = merge("PreToolUse", votes)
    assert merged.output == hso(
        "PreToolUse", permissionDecision="deny", permissionDecisionReason="hook_2: a\nhook_5"
    )


def test_unknown_decision_values_are_no_vote() -> None:
    outputs = [hso("PreToolUse", permissionDecision="maybe"), {"decision": "perhaps"}]
    assert merge_outputs("PreToolUse", outputs) == {}


REWRITE = [
    hso("PreToolUse", permissionDecision="allow", updatedInput={"command": "ls -a"}),
    hso("PreToolUse", additionalContext="ctx"),
    hso("PreToolUse", updatedInput={"command": "ls -l"}),
]


@pytest.mark.req("R-409")
def test_parallel_rewrites_that_differ_are_a_conflict_and_neither_is_used() -> None:
    """In parallel, two different rewrites are a conflict."""
    merged = merge("PreToolUse", [Vote(f"hook_{i}", o) for i, o in enumerate(REWRITE)])
    assert merged.output == hso(
        "PreToolUse",
        permissionDecision="allow",
        additionalContext="ctx",
    )
    assert merged.conflicts == [
        Conflict("hookSpecificOutput.updatedInput", ["hook_0", "hook_2"], "dropped")
    ]


def test_parallel_rewrites_that_agree_are_no_conflict() -> None:
    same = [REWRITE[0], hso("PreToolUse", updatedInput={"command": "ls -a"})]
    merged = merge("PreToolUse", [Vote(str(i), o) for i, o in enumerate(same)])
    assert merged.conflicts == []
    assert merged.output["hookSpecificOutput"]["updatedInput"] == {"command": "ls -a"}


@pytest.mark.req("R-409")
def test_sequential_rewrites_the_last_one_stands() -> None:
    """In sequence, the last rewrite stands."""
    merged = merge("PreToolUse", [Vote(str(i), o) for i, o in enumerate(REWRITE)], sequential=True)
    assert merged.conflicts == []
    assert merged.output["hookSpecificOutput"]["updatedInput"] == {"command": "ls -l"}


@pytest.mark.req("R-410")
def test_any_other_single_valued_field_conflicts_the_same_way() -> None:
    """Single-valued fields follow the rewrite rule, unguarded."""
    votes = [
        Vote("a", hso("SessionStart", sessionTitle="one", additionalContext="x")),
        Vote("b", hso("SessionStart", sessionTitle="two")),
    ]
    merged = merge("SessionStart", votes)
    assert merged.output == hso("SessionStart", additionalContext="x")
    assert [msgspec.to_builtins(c) for c in merged.conflicts] == [
        {
            "field": "hookSpecificOutput.sessionTitle",
            "callback_ids": ["a", "b"],
            "resolution": "dropped",
        }
    ]


@pytest.mark.parametrize(
    ("event", "outputs", "expected"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS]
)
@pytest.mark.req("R-401")
def test_merged_outputs_are_valid_outputs_of_their_event(
    event: str, outputs: list[dict[str, Any]], expected: dict[str, Any]
) -> None:
    """The merged output passes the event's own output schema."""
    assert validate_output(event, merge_outputs(event, outputs)) is None


# One hook's output is merged on a shorter path; it must give what the general path gives.
_FIELDS = [path for path in RULES if len(path) > 1] + [("hookSpecificOutput", "updatedInput")]
_VALUES = st.one_of(
    st.sampled_from(["deny", "allow", "ask", "defer", "block", "approve", "decline", "accept"]),
    st.text(max_size=4),
    st.booleans(),
    st.none(),
    st.integers(-2, 2),
    st.lists(st.sampled_from(["a", "b", 1]), max_size=3),
    st.dictionaries(st.sampled_from(["x", "y"]), st.integers(0, 2), max_size=2),
)


@st.composite
def _outputs(draw: st.DrawFn) -> dict[str, Any]:
    """An output of known and unknown fields, in any order, at any of the three levels."""
    output: dict[str, Any] = {}
    for path in draw(st.lists(st.sampled_from([*RULES, *_FIELDS, ("other",)]), max_size=8)):
        obj = output
        for key in path[:-1]:
            nested = obj.get(key)
            obj = obj.setdefault(key, {}) if nested is None or isinstance(nested, dict) else {}
        obj[path[-1]] = draw(_VALUES)
    return output


@pytest.mark.req("R-405", "R-406", "R-407", "R-408", "R-409")
@settings(max_examples=400, deadline=None)
@given(
    event=st.sampled_from(["PreToolUse", "PermissionRequest", "Stop", "Elicitation"]),
    output=_outputs(),
    sequential=st.booleans(),
)
def test_one_output_merges_as_the_general_merge_does(
    event: str, output: dict[str, Any], sequential: bool
) -> None:
    """One vote gives the same output, key order included, as a merge with an empty vote."""
    alone = merge(event, [Vote("hook_1", output)], sequential=sequential)
    general = merge(event, [Vote("hook_1", output), Vote("hook_2", {})], sequential=sequential)
    assert msgspec.json.encode(alone.output) == msgspec.json.encode(general.output)
    assert alone.output == general.output
    assert alone.conflicts == general.conflicts == []
