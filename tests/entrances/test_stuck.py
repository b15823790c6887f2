"""Stuck hooks cost only themselves; ``can_use_tool`` answers PermissionRequest over HTTP."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.cli.console import HOOKD
from tests.entrances.test_same_meaning import TOKEN, _daemon, _input

ROOT = Path(__file__).resolve().parents[2]
MODULE = str(ROOT / "tests" / "hooks" / "stuck.py")


def _post(port: int, body: dict[str, Any]) -> dict[str, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    event = body["hook_event_name"]
    conn.request("POST", f"/hook/{event}", json.dumps(body), {"Authorization": f"Bearer {TOKEN}"})
    reply = conn.getresponse()
    assert reply.status == 200
    answer: dict[str, Any] = json.loads(reply.read())
    conn.close()
    return answer


def _cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def _daemon_pid(tmp: Path) -> int:
    return int(json.loads((tmp / "ready.json").read_text())["pid"])


@pytest.mark.req("R-076")
def test_a_busy_looping_sync_hook_is_stopped_and_costs_no_cpu_after(tmp_path: Path) -> None:
    with _daemon("block", tmp_path, MODULE) as daemon:
        port, pid = daemon.port, _daemon_pid(tmp_path)
        answer = _post(port, _input("Spins"))
        specific = answer["hookSpecificOutput"]
        assert specific["permissionDecision"] == "deny"
        assert "timed out" in specific["permissionDecisionReason"]
        # the watchdog interrupts the thread a second past its deadline; a later call then
        # finds the daemon idle: its CPU over the next seconds is well under 10 %
        assert _post(port, _input("Answers"))["hookSpecificOutput"]["additionalContext"] == "fine"
        daemon.wait_log("hook.thread_ended")  # the interrupted thread is gone
        before = _cpu_ticks(pid)
        subprocess.run(["sleep", "2"], check=True)
        used_s = (_cpu_ticks(pid) - before) / os.sysconf("SC_CLK_TCK")
        assert used_s < 0.2, f"the daemon used {used_s:.2f}s of CPU in 2 s"


@pytest.mark.req("R-078")
def test_a_hook_stuck_in_c_is_refused_after_four_and_others_still_answer(tmp_path: Path) -> None:
    lines = []
    for number in range(100):
        request = {"subtype": "hook_callback", "callback_id": "hook_2", "input": _input("Sleeps")}
        lines.append({"type": "control_request", "request_id": f"s{number}", "request": request})
    answers_input = _input("Answers")
    request = {"subtype": "hook_callback", "callback_id": "hook_3", "input": answers_input}
    proc = subprocess.Popen(  # no quarantine: its refusals would take over from the fifth
        [HOOKD, "serve", MODULE, "--quarantine-after", "0"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    answers = []
    for wave in (lines[:8], lines[8:]):  # eight get stuck; the next 92 find them stuck
        proc.stdin.write("".join(json.dumps(line) + "\n" for line in wave))
        proc.stdin.flush()
        answers += [json.loads(proc.stdout.readline())["response"] for _ in wave]
    proc.stdin.write(
        json.dumps({"type": "control_request", "request_id": "last", "request": request}) + "\n"
    )
    proc.stdin.flush()
    last = json.loads(proc.stdout.readline())["response"]
    proc.kill()
    proc.wait()
    reasons = [a["response"]["hookSpecificOutput"]["permissionDecisionReason"] for a in answers]
    refused = [r for r in reasons if "still running past their timeout" in r]
    assert len(refused) == 92, reasons[:10]
    assert last["response"]["hookSpecificOutput"]["additionalContext"] == "fine"


@pytest.mark.req("R-132")
def test_can_use_tool_answers_permission_requests_over_http(tmp_path: Path) -> None:
    def asked(command: str) -> dict[str, Any]:
        body = _input("Bash") | {"hook_event_name": "PermissionRequest"}
        body["tool_input"] = {"command": command}
        body.pop("tool_use_id")
        answer = _post(port, body)
        decision: dict[str, Any] = answer["hookSpecificOutput"]["decision"]
        return decision

    with _daemon("block", tmp_path, MODULE) as (port, _):
        assert asked("rm -rf /") == {"behavior": "deny", "message": "not with rm -rf"}
        assert asked("ls") == {"behavior": "allow", "updatedInput": {"command": "ls # ok"}}
        odd = asked("odd")
        assert odd["behavior"] == "deny"
        assert odd["message"].startswith("hookd: hook can_use_tool returned an invalid output")


@pytest.mark.req("R-078")
def test_a_hook_stuck_in_c_is_counted_in_status(tmp_path: Path) -> None:
    with _daemon("block", tmp_path, MODULE) as (port, _):
        answer = _post(port, _input("Sleeps"))
        assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/status", headers={"Authorization": f"Bearer {TOKEN}"})
        status = json.loads(conn.getresponse().read())
        conn.close()
    rows = {row["name"]: row for row in status["hooks"]}
    assert (rows["sleeps"]["timeouts"], rows["sleeps"]["stuck"]) == (1, 1)
    assert rows["answers"]["stuck"] == 0
    assert status["agents"]["claude"]["calls"] == 1


@pytest.mark.req("R-132")
def test_can_use_tool_failures_get_the_hook_failure_kinds_on_stdio() -> None:
    def ask(request_id: str, command: str) -> dict[str, Any]:
        body = {"subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": command}}
        return {"type": "control_request", "request_id": request_id, "request": body}

    stdin = "".join(json.dumps(ask(*pair)) + "\n" for pair in (("odd", "odd"), ("ok", "ls")))
    proc = subprocess.run(
        [HOOKD, "serve", MODULE],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    answers = {
        a["response"]["request_id"]: a["response"]
        for a in map(json.loads, proc.stdout.split("\n")[:-1])
    }
    assert answers["odd"]["error_code"] == "invalid_output"
    assert "must return an allow or a deny" in answers["odd"]["error"]
    assert answers["ok"]["response"] == {
        "behavior": "allow",
        "updatedInput": {"command": "ls # ok"},
    }


@pytest.mark.req("R-078", "R-L38")
def test_stuck_calls_of_one_session_refuse_only_that_sessions_calls(tmp_path: Path) -> None:
    def call(request_id: str, session: str) -> dict[str, Any]:
        data = _input("Sleeps") | {"session_id": session}
        request = {"subtype": "hook_callback", "callback_id": "hook_2", "input": data}
        return {"type": "control_request", "request_id": request_id, "request": request}

    proc = subprocess.Popen(
        [HOOKD, "serve", MODULE, "--quarantine-after", "0"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None

    def reasons(lines: list[dict[str, Any]]) -> list[str]:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("".join(json.dumps(line) + "\n" for line in lines))
        proc.stdin.flush()
        answers = [json.loads(proc.stdout.readline())["response"] for _ in lines]
        specific = [a["response"]["hookSpecificOutput"] for a in answers]
        return [s["permissionDecisionReason"] for s in specific]

    stuck = reasons([call(f"a{n}", "attacker") for n in range(4)])  # four stuck threads
    refused = reasons([call("a-next", "attacker")])
    other = reasons([call("v1", "victim")])
    proc.kill()
    proc.wait()
    assert all("timed out" in r or "ran past" in r for r in stuck), stuck
    assert "still running past their timeout" in refused[0]
    assert "still running past their timeout" not in other[0]  # its own share: it ran
    assert "timed out" in other[0] or "ran past" in other[0]
