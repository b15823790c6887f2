"""Matcher rules, row by row: match-all, exact names, regexes, and the field per event."""

from __future__ import annotations

import pytest

from hookd.core.matcher import MatcherError, compile_matcher, matcher_field, matcher_subject
from hookd.events import EVENTS

pytestmark = pytest.mark.req("R-402")

# (matcher, kind, values it selects, values it does not)
RULES: list[tuple[str | None, str, list[str], list[str]]] = [
    (None, "all", ["Bash", "", "anything"], []),
    ("", "all", ["Bash", ""], []),
    ("*", "all", ["Bash", "mcp__x__y"], []),
    ("  ", "all", ["Bash"], []),
    ("Bash", "names", ["Bash"], ["bash", "BashX", "MyBash", "Bas", ""]),
    ("Edit|Write", "names", ["Edit", "Write"], ["Edit|Write", "Read", "MultiEdit"]),
    ("Edit, Write", "names", ["Edit", "Write"], ["Edit, Write", " Write"]),
    ("Edit | Write |", "names", ["Edit", "Write"], [""]),
    ("manual", "names", ["manual"], ["auto", "manually"]),
    ("prompt_input_exit", "names", ["prompt_input_exit"], ["other"]),
    ("file-watcher", "names", ["file-watcher"], ["file"]),
    ("mcp__.*", "regex", ["mcp__memory__read", "x_mcp__y"], ["mcp_memory"]),
    ("^Notebook", "regex", ["Notebook", "NotebookEdit"], ["MyNotebook"]),
    ("Note.*", "regex", ["MyNotebook", "Note"], ["note"]),
    ("^Bash$", "regex", ["Bash"], ["Bash2", "MyBash"]),
    ("Edit$|^Write", "regex", ["MultiEdit", "WriteFile"], ["Editor", "ReWrite"]),
    (".env", "regex", [".env", "xenv", ".envrc"], ["env"]),
    ("Bash(git)?", "regex", ["Bash", "Bashgit"], ["bash"]),
]


@pytest.mark.parametrize(("pattern", "kind", "hits", "misses"), RULES)
def test_matcher_rules(pattern: str | None, kind: str, hits: list[str], misses: list[str]) -> None:
    m = compile_matcher(pattern)
    assert m.kind == kind
    for value in hits:
        assert m.matches(value), (pattern, value)
    for value in misses:
        assert not m.matches(value), (pattern, value)


@pytest.mark.parametrize("pattern", ["Bash", "mcp__.*", None, "*"])
def test_an_event_without_a_matcher_field_selects_every_hook(pattern: str | None) -> None:
    assert compile_matcher(pattern).matches(None)


@pytest.mark.parametrize("pattern", ["[", "(Bash", "*Bash", "a{2,1}"])
def test_an_invalid_regex_is_an_error_naming_the_matcher(pattern: str) -> None:
    with pytest.raises(MatcherError, match="not a valid regular expression") as info:
        compile_matcher(pattern)
    assert repr(pattern) in str(info.value)


def test_compiled_matchers_are_cached() -> None:
    assert compile_matcher("mcp__.*") is compile_matcher("mcp__.*")


# (event, input field compared with the matcher)
FIELDS = [
    ("PreToolUse", "tool_name"),
    ("PostToolUse", "tool_name"),
    ("PostToolUseFailure", "tool_name"),
    ("PermissionRequest", "tool_name"),
    ("PermissionDenied", "tool_name"),
    ("SessionStart", "source"),
    ("SessionEnd", "reason"),
    ("Setup", "trigger"),
    ("Notification", "notification_type"),
    ("SubagentStart", "agent_type"),
    ("SubagentStop", "agent_type"),
    ("PreCompact", "trigger"),
    ("PostCompact", "trigger"),
    ("ConfigChange", "source"),
    ("StopFailure", "error"),
    ("InstructionsLoaded", "load_reason"),
    ("Elicitation", "mcp_server_name"),
    ("ElicitationResult", "mcp_server_name"),
    ("UserPromptExpansion", "command_name"),
    ("PreModelSwitch", "to_model"),
    ("PostModelSwitch", "to_model"),
    ("DirectoryAdded", "source"),
]
NO_MATCHER = [
    "UserPromptSubmit",
    "Stop",
    "TeammateIdle",
    "TaskCreated",
    "TaskCompleted",
    "WorktreeCreate",
    "WorktreeRemove",
    "CwdChanged",
    "PostToolBatch",
    "MessageDisplay",
    "SomeFutureEvent",
]


def test_the_catalogue_has_the_documented_fields() -> None:
    with_field = {name: spec.matcher_field for name, spec in EVENTS.items() if spec.matcher_field}
    assert with_field == dict(FIELDS) | {"FileChanged": "file_path"}
    assert not set(NO_MATCHER) & set(with_field)


@pytest.mark.parametrize(("event", "field"), FIELDS)
def test_each_event_matches_its_own_field(event: str, field: str) -> None:
    assert matcher_field(event) == field
    input_data = {"hook_event_name": event, "tool_name": "decoy", field: "wanted"}
    assert matcher_subject(event, input_data) == "wanted"
    assert compile_matcher("wanted").matches(matcher_subject(event, input_data))
    assert not compile_matcher("decoy").matches(matcher_subject(event, input_data | {field: "x"}))


@pytest.mark.parametrize("event", NO_MATCHER)
def test_events_without_a_matcher_field(event: str) -> None:
    assert matcher_field(event) is None
    assert matcher_subject(event, {"tool_name": "Bash", "source": "startup"}) is None


def test_file_changed_matches_the_file_base_name() -> None:
    subject = matcher_subject("FileChanged", {"file_path": "/repo/sub/.envrc", "event": "change"})
    assert subject == ".envrc"
    assert compile_matcher(".envrc|.env").matches(subject)
    assert not compile_matcher("sub").matches(subject)


@pytest.mark.parametrize("value", [None, 3, ["Bash"]])
def test_a_missing_or_odd_field_is_the_empty_string(value: object) -> None:
    subject = matcher_subject("PreToolUse", {"tool_name": value})
    assert subject == ""
    assert compile_matcher("*").matches(subject)
    assert not compile_matcher("Bash").matches(subject)
