"""``hookd replay``: comparison, planning, and replays against the real ``hookd serve`` process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hookd.cli.replay import main
from hookd.transcript.format import TranscriptError, load, parse
from hookd.transcript.jsondiff import MISSING, Difference, compare
from hookd.transcript.plan import answer_key, build_plan, map_callback_ids
from hookd.transcript.replay import ReplayConfig, format_report, replay

ROOT = Path(__file__).resolve().parents[2]
CONFORMANCE = ROOT / "conformance"
ALLOW = CONFORMANCE / "transcripts" / "v2.1.330_allow.jsonl"
HOOKS = CONFORMANCE / "hooks"
SELFTEST = str(HOOKS / "selftest.py")  # hook_1: Stop, answers {}; hook_2: Notification, hangs
PRE_TOOL_USE_ID = "02900a7b-d599-4c97-ad16-a1c51df5d874"
EPSILON_S = 1e-6  # float rounding of clock arithmetic

STOP = {
    "session_id": "s1",
    "transcript_path": "/tmp/t.jsonl",
    "cwd": "/tmp",
    "hook_event_name": "Stop",
    "stop_hook_active": False,
}
NOTIFICATION = {
    "session_id": "s1",
    "transcript_path": "/tmp/t.jsonl",
    "cwd": "/tmp",
    "hook_event_name": "Notification",
    "message": "waiting",
    "notification_type": "idle_prompt",
}


# ----------------------------------------------------------------- transcript helpers


def call(request_id: str, callback_id: str, input_data: dict[str, Any]) -> dict[str, Any]:
    body = {"subtype": "hook_callback", "callback_id": callback_id, "input": input_data}
    return {"type": "control_request", "request_id": request_id, "request": body}


def success(request_id: str, payload: Any) -> dict[str, Any]:
    body = {"subtype": "success", "request_id": request_id, "response": payload}
    return {"type": "control_response", "response": body}


def cancel(request_id: str) -> dict[str, Any]:
    return {"type": "control_cancel_request", "request_id": request_id}


def to_hookd(t: float, msg: Any) -> dict[str, Any]:
    return {"dir": "cli->hookd", "t": t, "msg": msg}


def from_hookd(t: float, msg: Any) -> dict[str, Any]:
    return {"dir": "hookd->cli", "t": t, "msg": msg}


def write_transcript(path: Path, lines: list[dict[str, Any]], **header: Any) -> Path:
    head = [{"hookd_transcript": 1, **header}] if header else []
    path.write_text("".join(json.dumps(obj) + "\n" for obj in [*head, *lines]))
    return path


# ------------------------------------------------------------------------ comparison


def test_compare_ignores_key_order_and_number_spelling() -> None:
    assert compare({"a": 1, "b": [1.0, {"c": None}]}, {"b": [1, {"c": None}], "a": 1.0}) == []


def test_compare_names_every_differing_field_by_path() -> None:
    recorded = {"response": {"response": {"x": [1, 2], "gone": True, "flag": True}}}
    got = {"response": {"response": {"x": [1, 3, 4], "flag": 1, "new": "v"}}}
    assert compare(recorded, got) == [
        Difference(("response", "response", "x", 1), 2, 3),
        Difference(("response", "response", "x", 2), MISSING, 4),
        Difference(("response", "response", "gone"), True, MISSING),
        Difference(("response", "response", "flag"), True, 1),
        Difference(("response", "response", "new"), MISSING, "v"),
    ]
    assert Difference(("a", 0, "b"), "x", "y").describe() == 'a[0].b: recorded "x", got "y"'


def test_compare_allows_only_the_documented_additions() -> None:
    error: dict[str, Any] = {"type": "control_response", "response": {"subtype": "error"}}
    with_code = {"type": "control_response", "response": {**error["response"], "error_code": "c"}}
    assert compare(error, with_code) == []
    assert compare({"response": {}}, {"response": {}, "error_code": "c"}) != []
    init: dict[str, Any] = {"response": {"response": {"hooks": {}}}}
    server = {"response": {"response": {"hooks": {}, "serverInfo": {"name": "hookd"}}}}
    assert compare(init, server) == []


def test_compare_ignores_the_server_version_only() -> None:
    def info(name: str, version: str) -> dict[str, Any]:
        return {"result": {"serverInfo": {"name": name, "version": version}}}

    assert compare(info("hookd", "0.1.0"), info("hookd", "9.9.9")) == []
    assert compare(info("hookd", "0.1.0"), info("other", "0.1.0")) != []


# -------------------------------------------------------------------------- planning


def test_plan_of_a_host_recording_skips_the_hosts_own_lines() -> None:
    plan = build_plan(load(ALLOW))
    assert plan.mode == "host"
    assert plan.recorded_ids == ["hook_0", "hook_1", "hook_2", "hook_3"]
    skipped = [(e.msg.get("type"), e.dir) for e in plan.skipped]
    assert skipped == [
        ("control_request", "hookd->cli"),  # the host's initialize
        ("control_response", "cli->hookd"),  # the CLI's answer to it
        ("user", "hookd->cli"),  # the prompt
    ]
    assert len(plan.expected) == 4
    assert len(plan.steps) == 11
    # the PreToolUse request is sent once the UserPromptSubmit answer arrived
    pre = next(s for s in plan.steps if s.key == ("control", f'"{PRE_TOOL_USE_ID}"'))
    assert pre.after == 1


def test_plan_times_a_cancel_from_its_request() -> None:
    lines = [
        to_hookd(1.0, call("r1", "hook_2", NOTIFICATION)),
        to_hookd(1.5, {"type": "system"}),
        to_hookd(3.25, cancel("r1")),
    ]
    plan = build_plan(parse([json.dumps(x) for x in lines]))
    assert plan.mode == "sidecar"
    assert [(s.cancels, s.delay_s, s.gap_s) for s in plan.steps] == [
        (None, 0.0, 0.0),
        (None, 0.0, 0.5),
        (("control", '"r1"'), 2.25, 1.75),
    ]


def test_callback_ids_are_renamed_in_both_framings_and_batches() -> None:
    mapping = {"hook_0": "hook_1"}
    control = call("r", "hook_0", {})
    assert map_callback_ids(control, mapping)["request"]["callback_id"] == "hook_1"
    assert control["request"]["callback_id"] == "hook_0"  # a copy, not an edit
    rpc = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "hook_callback",
        "params": {"callback_id": "hook_0"},
    }
    assert map_callback_ids([rpc], mapping)[0]["params"]["callback_id"] == "hook_1"
    assert map_callback_ids(call("r", "hook_7", {}), mapping)["request"]["callback_id"] == "hook_7"


def test_transcript_errors_name_the_line() -> None:
    with pytest.raises(TranscriptError, match="<transcript>:2: not JSON"):
        parse(['{"hookd_transcript": 1}', "{oops"])
    with pytest.raises(TranscriptError, match=":2: header line after the first message"):
        parse([json.dumps(to_hookd(0, {})), '{"mode": "host"}'])
    with pytest.raises(TranscriptError, match="either 'msg' or a 'raw' string"):
        parse(['{"dir": "cli->hookd", "t": 0}'])


# ------------------------------------------------------------- against hookd serve


async def test_one_changed_answer_fails_with_a_diff_naming_request_and_field() -> None:
    # (with real_allow.py the same recording replays green: tests/test_conformance.py)
    result = await replay(load(ALLOW), ReplayConfig(hooks=str(HOOKS / "broken_allow.py")))
    assert not result.ok
    assert result.mapping == {f"hook_{i}": f"hook_{i + 1}" for i in range(4)}  # by position
    [mismatch] = result.answers.mismatches
    assert mismatch.expected.key == ("control", f'"{PRE_TOOL_USE_ID}"')
    report = format_report(result)
    assert (
        f'request "{PRE_TOOL_USE_ID}" (hook_callback PreToolUse, callback hook_0 -> hookd hook_1;'
        in report
    )
    assert (
        "    response.response.hookSpecificOutput.permissionDecisionReason: "
        'recorded "hookd says allow", got "hookd says maybe"'
    ) in report.splitlines()
    assert report.startswith(f"FAIL {ALLOW}: 3/4 answers match")


async def test_an_answer_to_a_request_the_recording_left_unanswered_fails(tmp_path: Path) -> None:
    # recorded: the request was cancelled and never answered; the fast hook answers at once
    path = write_transcript(
        tmp_path / "t.jsonl",
        [to_hookd(0.0, call("c1", "hook_1", STOP)), to_hookd(0.05, cancel("c1"))],
    )
    result = await replay(load(path), ReplayConfig(hooks=SELFTEST))
    assert not result.ok
    assert [answer_key(msg) for msg in result.answers.unexpected] == [("control", '"c1"')]
    assert 'request "c1": answered, but the recording has no such answer' in format_report(result)


async def test_a_cancel_waits_for_its_recorded_pause_scaled_by_speed(tmp_path: Path) -> None:
    lines = [
        to_hookd(1.0, call("h1", "hook_2", NOTIFICATION)),  # hangs until cancelled
        to_hookd(1.6, cancel("h1")),
        to_hookd(1.7, call("f1", "hook_1", STOP)),
        from_hookd(1.7, success("f1", {})),
    ]
    path = write_transcript(tmp_path / "t.jsonl", lines, mode="sidecar", hooks=SELFTEST, speed=2)
    result = await replay(load(path))
    assert result.ok, format_report(result)
    assert result.sent_at[3] - result.sent_at[2] >= 0.3 - EPSILON_S  # 0.6 s recorded, at speed 2

    fast = await replay(load(path), ReplayConfig(speed=float("inf")))
    assert fast.ok, format_report(fast)


async def test_recorded_pace_keeps_every_gap(tmp_path: Path) -> None:
    lines = [to_hookd(0.0, {"type": "system"}), to_hookd(0.4, {"type": "system"})]
    path = write_transcript(tmp_path / "t.jsonl", lines, hooks=SELFTEST)
    result = await replay(load(path), ReplayConfig(pace="recorded", speed=2))
    assert result.ok, format_report(result)
    assert result.sent_at[3] - result.sent_at[2] >= 0.2 - EPSILON_S


async def test_a_missing_answer_is_reported_after_the_timeout(tmp_path: Path) -> None:
    lines = [to_hookd(0.0, call("h1", "hook_2", NOTIFICATION)), from_hookd(0.1, success("h1", {}))]
    path = write_transcript(tmp_path / "t.jsonl", lines, hooks=SELFTEST)
    result = await replay(load(path), ReplayConfig(timeout_s=0.5))
    assert not result.ok
    assert [exp.key for exp in result.answers.missing()] == [("control", '"h1"')]
    report = format_report(result)
    assert "    no answer from hookd" in report
    assert "answers still missing after 0.5s (before the end)" in report


async def test_a_server_that_cannot_start_fails_with_its_stderr(tmp_path: Path) -> None:
    lines = [to_hookd(0.0, call("f1", "hook_1", STOP)), from_hookd(0.0, success("f1", {}))]
    path = write_transcript(tmp_path / "t.jsonl", lines, hooks="no_such_hooks.py")
    result = await replay(load(path))
    assert not result.ok
    assert "error: hookd exited with code 1" in format_report(result)
    assert b"no_such_hooks.py: no such file" in result.stderr


def test_command_line_exit_status(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main([str(ALLOW), "--hooks", str(HOOKS / "broken_allow.py"), "--speed", "inf"]) == 1
    assert capsys.readouterr().out.startswith(f"FAIL {ALLOW}")
    assert main([str(tmp_path / "absent.jsonl"), "--hooks", SELFTEST]) == 2
    assert "absent.jsonl: cannot read" in capsys.readouterr().err
    lines = [to_hookd(0.0, {"type": "system"})]
    path = write_transcript(tmp_path / "t.jsonl", lines, hooks=SELFTEST)
    assert main([str(path), "-q"]) == 0
    assert capsys.readouterr().out == ""


async def test_an_http_transcript_goes_through_the_same_engine_and_report(tmp_path: Path) -> None:
    recorded = CONFORMANCE / "transcripts" / "http_prompt_blocked.jsonl"
    header, prompt, blocked, session_end, _ = recorded.read_text().splitlines()
    changed = json.loads(blocked)
    changed["http"]["status"] = 201
    path = tmp_path / "http.jsonl"  # the SessionEnd answer left out: recorded as never answered
    path.write_text("\n".join([header, prompt, json.dumps(changed), session_end]) + "\n")
    result = await replay(load(path), ReplayConfig(hooks=str(HOOKS / "http_real.py")))
    assert not result.ok
    report = format_report(result).splitlines()
    assert report[0] == f"FAIL {path}: 0/1 answers match, 2 requests sent over HTTP"
    assert report[1:5] == [
        "  request (POST /hook/UserPromptSubmit; request line 2; answer line 3):",
        "    HTTP status: recorded 201, got 200",
        "  request line 4: answered, but the recording has no such answer",
        "    (a cancelled or never-answered request must get none) got {}",
    ]
    assert result.returncode == 0  # SIGTERM, then a clean exit
