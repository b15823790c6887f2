"""A hook that keeps failing is quarantined, with the same meaning on every entrance.

``tests/hooks/health.py`` has a hook that raises until a file says it is fixed,
and appends a line per call to another: a call answered without running it
leaves no line. Each entrance is driven by its real interface, one call at a
time (each answer read before the next call is sent).
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

from tests.cli.console import HOOKD

ROOT = Path(__file__).resolve().parents[2]
MODULE = str(ROOT / "tests" / "hooks" / "health.py")
TOKEN = "health-token-0123456789abcdef"
RAISED = "hookd: hook flaky raised an exception: boom"
QUARANTINED = (
    "hookd: hook flaky is quarantined after 5 failures in 60s "
    "(last: raised an exception: boom); retried in 30s"
)

#: One call's answer read back: (decision, reason) under block, (error code, text) under
#: continue.
Ask = Callable[[str], tuple[str | None, str | None]]


def _input(tool: str) -> dict[str, Any]:
    return {
        "session_id": "s-health", "transcript_path": "/tmp/t.jsonl", "cwd": str(ROOT),
        "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": tool,
        "tool_input": {"command": "ls"}, "tool_use_id": "toolu_health",
    }  # fmt: skip


def _env(tmp: Path, policy: str = "block", **extra: str) -> dict[str, str]:
    return {**os.environ, "HEALTH_DIR": str(tmp), "HEALTH_POLICY": policy, **extra}


def calls(tmp: Path) -> int:
    """How many times the flaky hooks ran."""
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

    def ask(tool: str) -> tuple[str | None, str | None]:
        nonlocal number
        number += 1
        callback_id = {"Flaky": "hook_1", "FlakySync": "hook_2", "Fine": "hook_3"}[tool]
        line: dict[str, Any]
        if kind == "hook_callback":
            request: dict[str, Any] = {"subtype": "hook_callback", "callback_id": callback_id}
            request |= {"input": _input(tool), "tool_use_id": "toolu_health"}
            line = {"type": "control_request", "request_id": f"r{number}", "request": request}
        else:
            params = {"event": "PreToolUse", "input": _input(tool)}
            line = {"jsonrpc": "2.0", "id": number, "method": "hooks/dispatch", "params": params}
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(line) + "\n")
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())
        if kind != "hook_callback":
            (hook,) = answer["result"]["hooks"]
            if hook["outcome"] in ("exception", "quarantined"):
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

        def ask(tool: str) -> tuple[str | None, str | None]:
            return _decision(_request(port, "POST", "/hook/PreToolUse", _input(tool)))

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
def kit(tmp: Path, monkeypatch: pytest.MonkeyPatch, **options: Any) -> Iterator[Ask]:
    import hookd.testing

    monkeypatch.setenv("HEALTH_DIR", str(tmp))
    monkeypatch.setenv("HEALTH_POLICY", "block")
    hooks = hookd.testing.load(MODULE, **options)

    def ask(tool: str) -> tuple[str | None, str | None]:
        fields = {k: v for k, v in _input(tool).items() if k != "cwd"}
        result = hooks.fire_sync("PreToolUse", **fields)
        return _decision(result.output)

    yield ask


# ------------------------------------------------------------------------------- tests


def _five_failures_then_quarantine(ask: Ask, tmp: Path) -> None:
    for _ in range(5):
        assert ask("Flaky") == ("deny", RAISED)
    assert ask("Flaky") == ("deny", QUARANTINED)
    assert ask("Flaky") == ("deny", QUARANTINED)
    assert calls(tmp) == 5  # the last two calls never ran it
    assert ask("Fine") == ("context", "fine")  # the others keep answering


@pytest.mark.req("R-L30", "R-L31")
@pytest.mark.parametrize("entrance", ["hook_callback", "dispatch", "http", "kit"])
def test_a_hook_that_keeps_raising_is_quarantined_on_every_entrance(
    entrance: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if entrance == "http":
        with http_daemon(tmp_path) as (ask, _):
            _five_failures_then_quarantine(ask, tmp_path)
    elif entrance == "kit":
        with kit(tmp_path, monkeypatch) as ask:
            _five_failures_then_quarantine(ask, tmp_path)
    else:
        with stdio(tmp_path, kind=entrance) as ask:
            _five_failures_then_quarantine(ask, tmp_path)


@pytest.mark.req("R-L30", "R-L31")
@pytest.mark.parametrize("kind", ["hook_callback", "dispatch"])
def test_under_continue_a_quarantined_hook_is_the_usual_failure(kind: str, tmp_path: Path) -> None:
    with stdio(tmp_path, policy="continue", kind=kind) as ask:
        for _ in range(5):
            code, text = ask("FlakySync")  # a thread hook: the handler's other path
            assert text == "boom"
        code, text = ask("FlakySync")
    assert code == ("hook_execution_error" if kind == "hook_callback" else "quarantined")
    assert text is not None and text.startswith("quarantined after 5 failures in 60s (last: ")
    assert calls(tmp_path) == 5


@pytest.mark.req("R-L30")
def test_under_continue_http_notes_the_quarantine(tmp_path: Path) -> None:
    with http_daemon(tmp_path, policy="continue") as (ask, _):
        for _ in range(5):
            assert ask("FlakySync") == (
                "context",
                "hookd: hook flaky_sync raised an exception: boom",
            )
        _, note = ask("FlakySync")
    assert str(note).startswith(
        "hookd: hook flaky_sync is quarantined after 5 failures in 60s (last: raised an "
    )
    assert calls(tmp_path) == 5


@pytest.mark.req("R-L32")
def test_after_the_cool_down_the_hook_runs_again_and_a_success_clears_it(tmp_path: Path) -> None:
    options = ("--quarantine-after", "2", "--quarantine-cooldown", "0.5")
    quarantined = "hookd: hook flaky is quarantined"
    with stdio(tmp_path, *options) as ask:
        assert [ask("Flaky")[1] for _ in range(2)] == [RAISED, RAISED]
        first = ask("Flaky")[1]
        assert first == (
            f"{quarantined} after 2 failures in 60s (last: raised an exception: boom); "
            "retried in 0.5s"
        )
        time.sleep(0.6)  # the cool-down passes: nothing happens until the next call
        assert ask("Flaky")[1] == RAISED  # it ran; it failed: back in, for twice as long
        again = ask("Flaky")[1]
        assert again == (
            f"{quarantined} again: its retry failed (last: raised an exception: boom); "
            "retried in 1s"
        )
        assert calls(tmp_path) == 3
        (tmp_path / "fixed").touch()
        time.sleep(1.1)
        assert ask("Flaky") == ("context", "fixed")  # ran, answered: forgiven
        (tmp_path / "fixed").unlink()
        assert ask("Flaky")[1] == RAISED  # one failure of a clean record: still run
        assert ask("Flaky")[1] == RAISED
        assert str(ask("Flaky")[1]).startswith(quarantined)
    assert calls(tmp_path) == 6


@pytest.mark.req("R-L33")
def test_quarantine_after_zero_never_quarantines_and_the_environment_sets_the_count(
    tmp_path: Path,
) -> None:
    with stdio(tmp_path, "--quarantine-after", "0") as ask:
        assert [ask("Flaky")[1] for _ in range(7)] == [RAISED] * 7
    assert calls(tmp_path) == 7
    (tmp_path / "calls").unlink()
    env = _env(tmp_path, HOOKD_QUARANTINE_AFTER="2", HOOKD_QUARANTINE_COOLDOWN="90")
    with stdio(tmp_path, env=env) as ask:
        assert [ask("Flaky")[1] for _ in range(2)] == [RAISED] * 2
        assert ask("Flaky")[1] == (
            "hookd: hook flaky is quarantined after 2 failures in 60s "
            "(last: raised an exception: boom); retried in 90s"
        )
    assert calls(tmp_path) == 2


@pytest.mark.req("R-L33")
def test_a_bad_quarantine_variable_is_one_error_line(tmp_path: Path) -> None:
    env = _env(tmp_path, HOOKD_QUARANTINE_AFTER="many")
    done = subprocess.run(
        [HOOKD, "serve", MODULE],
        input="", capture_output=True, text=True, env=env, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode != 0
    assert "$HOOKD_QUARANTINE_AFTER: not a whole number: 'many'" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.req("R-L34")
def test_status_counts_quarantined_calls_and_says_until_when(tmp_path: Path) -> None:
    from hookd.daemon.report import render

    with http_daemon(tmp_path) as (ask, port):
        for _ in range(7):
            ask("Flaky")
        status = _request(port, "GET", "/status")
    rows = {row["name"]: row for row in status["hooks"]}
    flaky = rows["flaky"]
    assert (flaky["calls"], flaky["errors"], flaky["quarantined"]) == (7, 5, 2)
    assert 25 < flaky["quarantined_until"] - time.time() <= 30
    assert flaky["quarantine_reason"] == "after 5 failures in 60s (last: raised an exception: boom)"
    assert rows["fine"]["quarantined_until"] is None
    assert status["agents"]["claude"]["quarantined"] == 2
    shown = render(status, port)  # what `hookd status` prints
    until = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(flaky["quarantined_until"]))
    assert (
        f"  quarantined: flaky (hook_1) until {until}, after 5 failures in 60s "
        "(last: raised an exception: boom)"
    ) in shown.splitlines()


@pytest.mark.req("R-L36")
def test_a_new_registry_starts_clean(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with kit(tmp_path, monkeypatch) as ask:
        _five_failures_then_quarantine(ask, tmp_path)
    with kit(tmp_path, monkeypatch) as ask:  # loaded again, as a reload does
        assert ask("Flaky") == ("deny", RAISED)
    assert calls(tmp_path) == 6
