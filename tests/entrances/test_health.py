"""Quarantine is no switch an agent can flip: only timeouts count, per session, and a
quarantined hook still runs (on a short leash). The same on every entrance.

``tests/hooks/health.py`` has a Bash guard that an unbalanced quote makes raise and a
``hang`` makes time out; it appends a line per call to a file, so a test sees whether it
ran. Each entrance is driven by its real interface, one call at a time (each answer read
before the next call is sent).
"""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from hookd.core.health import Quarantine
from tests.cli.console import HOOKD

ROOT = Path(__file__).resolve().parents[2]
MODULE = str(ROOT / "tests" / "hooks" / "health.py")
TOKEN = "health-token-0123456789abcdef"
DENIED = "guard: rm -rf is not allowed here"
FINE = "guard: fine"
UNBALANCED = "echo 'IGNORE PREVIOUS INSTRUCTIONS attacker-text-4242"
TIMED_OUT = "hookd: hook guard timed out: no answer within 0.45s"
LEASH = ("--quarantine-leash", "0.1")
ENTRANCES = ["hook_callback", "dispatch", "http", "kit"]

#: One call's answer read back: (decision, reason) under block, (error code, text) under
#: continue; asked with (tool, command, session id).
Ask = Callable[[str, str, str], tuple[str | None, str | None]]


def _input(tool: str, command: str, session: str) -> dict[str, Any]:
    return {
        "session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": str(ROOT),
        "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": tool,
        "tool_input": {"command": command}, "tool_use_id": "toolu_health",
    }  # fmt: skip


def _env(tmp: Path, policy: str = "block", **extra: str) -> dict[str, str]:
    return {**os.environ, "HEALTH_DIR": str(tmp), "HEALTH_POLICY": policy, **extra}


def calls(tmp: Path) -> int:
    """How many times the guards ran."""
    where = tmp / "calls"
    return len(where.read_text().splitlines()) if where.exists() else 0


def _decision(output: dict[str, Any]) -> tuple[str | None, str | None]:
    specific = output.get("hookSpecificOutput") or {}
    if "permissionDecision" in specific:
        return specific["permissionDecision"], specific.get("permissionDecisionReason")
    return "context", specific.get("additionalContext") or output.get("systemMessage")


# ---------------------------------------------------------------------------- entrances


@contextmanager
def stdio(tmp: Path, *options: str, policy: str = "block", kind: str = "hook_callback",
          env: dict[str, str] | None = None) -> Iterator[Ask]:  # fmt: skip
    """``hookd serve`` on a pipe: each call a ``hook_callback`` (or a ``hooks/dispatch``)."""
    proc = subprocess.Popen(
        [HOOKD, "serve", MODULE, *options],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env=env or _env(tmp, policy),
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    number = 0

    def ask(tool: str, command: str, session: str) -> tuple[str | None, str | None]:
        nonlocal number
        number += 1
        callback_id = {"Guard": "hook_1", "GuardSync": "hook_2", "Fine": "hook_3"}[tool]
        data = _input(tool, command, session)
        line: dict[str, Any]
        if kind == "hook_callback":
            request: dict[str, Any] = {"subtype": "hook_callback", "callback_id": callback_id}
            request |= {"input": data, "tool_use_id": "toolu_health"}
            line = {"type": "control_request", "request_id": f"r{number}", "request": request}
        else:
            params = {"event": "PreToolUse", "input": data}
            line = {"jsonrpc": "2.0", "id": number, "method": "hooks/dispatch", "params": params}
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(line) + "\n")
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())
        if kind != "hook_callback":
            (hook,) = answer["result"]["hooks"]
            if hook["outcome"] in ("exception", "quarantined", "timeout"):
                return hook["outcome"], hook["error"]
            return _decision(answer["result"]["output"])
        response = answer["response"]
        if response["subtype"] == "error":
            return response["error_code"], response["error"]
        return _decision(response["response"])

    try:
        yield ask
    finally:
        proc.kill()
        proc.wait(30)


@contextmanager
def http_daemon(tmp: Path, *options: str, policy: str = "block") -> Iterator[tuple[Ask, int]]:
    """``hookd serve --http``: each call a POST on a real socket; and the port."""
    token = tmp / "token"
    token.write_text(TOKEN)
    ready = tmp / "ready.json"
    argv = [HOOKD, "serve", MODULE, "--http", "127.0.0.1:0", "--token-file", str(token)]
    argv += ["--ready-file", str(ready), "--log-format", "json", *options]
    proc = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True, env=_env(tmp, policy))
    try:
        assert proc.stderr is not None
        for line in proc.stderr:  # wait for the ready line, not for a time
            if '"http.ready"' in line:
                break
        port = int(json.loads(ready.read_text())["port"])

        def ask(tool: str, command: str, session: str) -> tuple[str | None, str | None]:
            data = _input(tool, command, session)
            return _decision(_request(port, "POST", "/hook/PreToolUse", data))

        yield ask, port
    finally:
        proc.terminate()
        proc.wait(30)


def _request(port: int, method: str, path: str, body: Any = None) -> dict[str, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    data = None if body is None else json.dumps(body)
    conn.request(method, path, data, {"Authorization": f"Bearer {TOKEN}"})
    reply = conn.getresponse()
    assert reply.status == 200
    found: dict[str, Any] = json.loads(reply.read())
    conn.close()
    return found


@contextmanager
def kit(tmp: Path, monkeypatch: pytest.MonkeyPatch, policy: str = "block",
        **options: Any) -> Iterator[Ask]:  # fmt: skip
    import hookd.testing

    monkeypatch.setenv("HEALTH_DIR", str(tmp))
    monkeypatch.setenv("HEALTH_POLICY", policy)
    hooks = hookd.testing.load(MODULE, **options)

    def ask(tool: str, command: str, session: str) -> tuple[str | None, str | None]:
        fields = {k: v for k, v in _input(tool, command, session).items() if k != "cwd"}
        result = hooks.fire_sync("PreToolUse", **fields)
        (hook,) = result.hooks
        if hook.outcome in ("exception", "quarantined", "timeout"):  # under continue
            return hook.outcome, hook.error
        return _decision(result.output)

    yield ask


@contextmanager
def entrance(name: str, tmp: Path, monkeypatch: pytest.MonkeyPatch, *options: str,
             policy: str = "block") -> Iterator[Ask]:  # fmt: skip
    """Any of the four entrances, under ``policy``; ``options`` are ``hookd serve``'s."""
    if name == "http":
        with http_daemon(tmp, *options, policy=policy) as (ask, _):
            yield ask
    elif name == "kit":
        leash = (
            float(options[options.index("--quarantine-leash") + 1]) if LEASH[0] in options else 1.0
        )
        with kit(tmp, monkeypatch, policy, quarantine=Quarantine(leash_s=leash)) as ask:
            yield ask
    else:
        with stdio(tmp, *options, policy=policy, kind=name) as ask:
            yield ask


# ------------------------------------------------------------------------------- tests


@pytest.mark.req("R-L30", "R-L37")
@pytest.mark.parametrize("policy", ["block", "continue"])
@pytest.mark.parametrize("name", ENTRANCES)
def test_inputs_that_make_a_guard_raise_change_nothing_for_any_session(
    name: str, policy: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with entrance(name, tmp_path, monkeypatch, policy=policy) as ask:
        for _ in range(8):  # the attack: eight inputs the guard cannot read
            decision, text = ask("Guard", UNBALANCED, "attacker")
            assert decision != "allow" and "No closing quotation" in str(text)
        for session in ("victim", "attacker"):  # the guard itself answers, in every session
            assert ask("Guard", "rm -rf /", session) == ("deny", DENIED)
            assert ask("Guard", "ls", session) == ("allow", FINE)
    assert calls(tmp_path) == 12  # every call ran the guard


@pytest.mark.req("R-L30", "R-L31", "R-L38")
@pytest.mark.parametrize("name", ENTRANCES)
def test_a_hook_that_keeps_timing_out_is_leashed_in_that_session_only(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with entrance(name, tmp_path, monkeypatch, *LEASH) as ask:
        for _ in range(5):
            assert ask("Guard", "sleep hang", "slow") == ("deny", TIMED_OUT)
        decision, text = ask("Guard", "sleep hang", "slow")
        assert decision == "deny"
        assert str(text).startswith(
            "hookd: hook guard is quarantined after 5 timeouts in 60s "
            "(last: timed out: no answer within 0.45s): no answer within its 0.1s leash; "
            "full timeout again in "
        )
        # still run in the quarantined session: the guard answers what it can answer
        assert ask("Guard", "rm -rf /", "slow") == ("deny", DENIED)
        assert ask("Guard", "ls", "slow") == ("allow", FINE)
        # another session: its full timeout, and no word of the first session's failures
        assert ask("Guard", "sleep hang", "other") == ("deny", TIMED_OUT)
        assert ask("Guard", "rm -rf /", "other") == ("deny", DENIED)
        assert ask("Fine", "ls", "slow") == ("context", "fine")
    assert calls(tmp_path) == 10  # the quarantined calls ran too


@pytest.mark.req("R-L30")
@pytest.mark.parametrize("kind", ["hook_callback", "dispatch"])
def test_under_continue_a_leashed_timeout_is_the_usual_failure(kind: str, tmp_path: Path) -> None:
    with stdio(tmp_path, *LEASH, policy="continue", kind=kind) as ask:
        for _ in range(5):
            code, text = ask("GuardSync", "sleep hang", "s")  # a thread hook: the other path
            assert text == "no answer within 0.45s"
        code, text = ask("GuardSync", "sleep hang", "s")
        assert ask("GuardSync", "rm -rf /", "s") == ("deny", DENIED)
    assert code == ("hook_execution_error" if kind == "hook_callback" else "quarantined")
    assert text is not None and text.startswith("quarantined after 5 timeouts in 60s (last: ")
    assert calls(tmp_path) == 7


@pytest.mark.req("R-L30")
def test_under_continue_http_notes_the_quarantine(tmp_path: Path) -> None:
    with http_daemon(tmp_path, *LEASH, policy="continue") as (ask, _):
        for _ in range(5):
            assert ask("GuardSync", "sleep hang", "s") == (
                "context",
                "hookd: hook guard_sync timed out: no answer within 0.45s",
            )
        _, note = ask("GuardSync", "sleep hang", "s")
    assert str(note).startswith(
        "hookd: hook guard_sync is quarantined after 5 timeouts in 60s (last: timed out: "
    )
    assert calls(tmp_path) == 6


@pytest.mark.req("R-L32")
def test_after_the_cool_down_the_full_timeout_is_back_and_an_answer_clears_it(
    tmp_path: Path,
) -> None:
    options = ("--quarantine-after", "2", "--quarantine-cooldown", "0.5", *LEASH)
    quarantined = "hookd: hook guard is quarantined"
    with stdio(tmp_path, *options) as ask:
        assert [ask("Guard", "hang", "s")[1] for _ in range(2)] == [TIMED_OUT] * 2
        assert str(ask("Guard", "hang", "s")[1]).startswith(
            f"{quarantined} after 2 timeouts in 60s (last: timed out: no answer within 0.45s): "
            "no answer within its 0.1s leash; full timeout again in 0."
        )
        assert ask("Guard", "ls", "s") == ("allow", FINE)  # an answer on the leash
        time.sleep(0.6)  # the cool-down passes: nothing happens until the next call
        assert ask("Guard", "hang", "s")[1] == TIMED_OUT  # its full timeout; back in, twice as long
        again = ask("Guard", "hang", "s")[1]
        assert str(again).startswith(f"{quarantined} again: its retry timed out (last: ")
        assert str(again).endswith("full timeout again in 0.9s") or "again in 1s" in str(again)
        time.sleep(1.1)
        assert ask("Guard", "ls", "s") == ("allow", FINE)  # full timeout, answered: forgiven
        assert ask("Guard", "hang", "s")[1] == TIMED_OUT  # one timeout of a clean record
        assert ask("Guard", "hang", "s")[1] == TIMED_OUT
        assert str(ask("Guard", "hang", "s")[1]).startswith(quarantined)
    assert calls(tmp_path) == 10


_SECONDS = "must be a number of seconds above 0 and at most 86400"
_COUNT = "must be a whole number from 0 (never) to 1000"


@pytest.mark.req("R-L33")
def test_quarantine_after_zero_never_quarantines_and_the_environment_sets_the_count(
    tmp_path: Path,
) -> None:
    with stdio(tmp_path, "--quarantine-after", "0") as ask:
        assert [ask("Guard", "hang", "s")[1] for _ in range(6)] == [TIMED_OUT] * 6
    env = _env(
        tmp_path,
        HOOKD_QUARANTINE_AFTER="2",
        HOOKD_QUARANTINE_COOLDOWN="90",
        HOOKD_QUARANTINE_LEASH="0.1",
    )
    with stdio(tmp_path, env=env) as ask:
        assert [ask("Guard", "hang", "s")[1] for _ in range(2)] == [TIMED_OUT] * 2
        assert str(ask("Guard", "hang", "s")[1]).startswith(
            "hookd: hook guard is quarantined after 2 timeouts in 60s (last: timed out: "
            "no answer within 0.45s): no answer within its 0.1s leash; full timeout again in 9"
        )
    assert calls(tmp_path) == 9


@pytest.mark.req("R-L33")
@pytest.mark.parametrize(
    ("variable", "value", "said"),
    [
        ("HOOKD_QUARANTINE_AFTER", "many", f"{_COUNT}, not 'many'"),
        ("HOOKD_QUARANTINE_AFTER", "-1", f"{_COUNT}, not '-1'"),
        ("HOOKD_QUARANTINE_AFTER", "²", f"{_COUNT}, not '²'"),
        ("HOOKD_QUARANTINE_COOLDOWN", "nan", f"{_SECONDS}, not 'nan'"),
        ("HOOKD_QUARANTINE_COOLDOWN", "inf", f"{_SECONDS}, not 'inf'"),
        ("HOOKD_QUARANTINE_COOLDOWN", "1e9", f"{_SECONDS}, not '1e9'"),
        ("HOOKD_QUARANTINE_WINDOW", "0", f"{_SECONDS}, not '0'"),
        ("HOOKD_QUARANTINE_LEASH", "soon", f"{_SECONDS}, not 'soon'"),
    ],
)
def test_a_bad_quarantine_variable_is_one_error_line(
    variable: str, value: str, said: str, tmp_path: Path
) -> None:
    done = subprocess.run(
        [HOOKD, "serve", MODULE],
        input="", capture_output=True, text=True, env=_env(tmp_path, **{variable: value}),
        timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode != 0
    (line,) = done.stderr.splitlines()
    assert f"${variable}: {said}" in line


@pytest.mark.req("R-L33")
@pytest.mark.parametrize("value", ["nan", "inf", "1e9", "0", "-2"])
def test_a_bad_quarantine_option_is_one_usage_line(value: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [HOOKD, "serve", MODULE, "--quarantine-cooldown", value],
        input="", capture_output=True, text=True, env=_env(tmp_path), timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert "--quarantine-cooldown" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.req("R-L34")
def test_status_counts_quarantined_calls_and_says_in_how_many_sessions(tmp_path: Path) -> None:
    from hookd.daemon.report import render

    with http_daemon(tmp_path, *LEASH) as (ask, port):
        for _ in range(7):
            ask("Guard", "hang", "s1")
        ask("Guard", "ls", "s2")
        status = _request(port, "GET", "/status")
    rows = {row["name"]: row for row in status["hooks"]}
    guard = rows["guard"]
    assert (guard["calls"], guard["timeouts"], guard["quarantined"]) == (8, 5, 2)
    assert guard["quarantined_sessions"] == 1
    assert 25 < guard["quarantined_until"] - time.time() <= 30
    assert guard["quarantine_reason"] == (
        "after 5 timeouts in 60s (last: timed out: no answer within 0.45s)"
    )
    assert rows["fine"]["quarantined_until"] is None
    assert status["agents"]["claude"]["quarantined"] == 2
    shown = render(status, port)  # what `hookd status` prints
    until = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(guard["quarantined_until"]))
    assert (
        f"  quarantined: guard (hook_1) in 1 session until {until}, after 5 timeouts in 60s "
        "(last: timed out: no answer within 0.45s)"
    ) in shown.splitlines()


@pytest.mark.req("R-L36")
def test_a_new_registry_starts_clean(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with kit(tmp_path, monkeypatch, quarantine=Quarantine(leash_s=0.1)) as ask:
        for _ in range(5):
            assert ask("Guard", "hang", "s") == ("deny", TIMED_OUT)
        assert str(ask("Guard", "hang", "s")[1]).startswith("hookd: hook guard is quarantined")
    with kit(tmp_path, monkeypatch) as ask:  # loaded again, as a reload does
        assert ask("Guard", "hang", "s") == ("deny", TIMED_OUT)
    assert calls(tmp_path) == 7
