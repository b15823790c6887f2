"""``hookd record`` and the transcript tee: what is recorded replays green."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
import trio
import trio.testing

from hookd.cli.record import proxy_header, serve_invocation
from hookd.host.recorder import record_env
from hookd.transcript.format import RECORD_ENV, load
from hookd.transcript.plan import host_only
from hookd.transcript.replay import ReplayConfig, format_report, replay
from hookd.transcript.tee import tee_from_env, tee_streams
from tests.transcript.test_replay import ALLOW, HOOKS, SELFTEST, STOP, call

PY = sys.executable


async def _drain(stream: trio.abc.ReceiveStream) -> bytes:
    out = b""
    with trio.fail_after(5):
        while data := await stream.receive_some():
            out += data
    return out


async def test_tee_passes_bytes_through_and_records_every_line(tmp_path: Path) -> None:
    cli_out, tee_in = trio.testing.memory_stream_one_way_pair()
    tee_out, cli_in = trio.testing.memory_stream_one_way_pair()
    path = tmp_path / "t.jsonl"
    receive, send = tee_streams(tee_in, tee_out, path, {"mode": "sidecar", "hooks": "h.py"})
    sent = b'{"type":"control_request",\n  "request_id":"r1"}\n\nnot json\r\n{"tail":1}'
    for i in range(0, len(sent), 7):  # lines split across writes
        await cli_out.send_all(sent[i : i + 7])
    await cli_out.aclose()
    assert await _drain(receive) == sent
    await send.send_all(b'{"a": 1}\n{"b"')
    await send.send_all(b": 2}\n")
    await send.aclose()
    assert await _drain(cli_in) == b'{"a": 1}\n{"b": 2}\n'
    await receive.aclose()

    transcript = load(path)
    assert (transcript.header.mode, transcript.header.hooks) == ("sidecar", "h.py")
    assert [(e.dir, e.msg, e.raw) for e in transcript.entries] == [
        ("cli->hookd", None, '{"type":"control_request",'),
        ("cli->hookd", None, '  "request_id":"r1"}'),
        ("cli->hookd", None, "not json\r"),
        ("cli->hookd", {"tail": 1}, None),
        ("hookd->cli", {"a": 1}, None),
        ("hookd->cli", {"b": 2}, None),
    ]


async def test_hookd_record_env_var_makes_a_server_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli_out, tee_in = trio.testing.memory_stream_one_way_pair()
    tee_out, _cli_in = trio.testing.memory_stream_one_way_pair()
    assert tee_from_env(tee_in, tee_out, hooks="h.py") == (tee_in, tee_out)  # unset: as they are

    monkeypatch.setenv(RECORD_ENV, str(tmp_path / "s-{pid}.jsonl"))
    monkeypatch.setattr(sys, "argv", ["hookd", "serve", "--timeout", "5", str(tmp_path / "h.py")])
    receive, send = tee_from_env(tee_in, tee_out, hooks=str(tmp_path / "h.py"))
    await cli_out.send_all(b'{"a": 1}\n')
    assert await receive.receive_some() == b'{"a": 1}\n'
    await send.aclose()
    await receive.aclose()
    transcript = load(tmp_path / f"s-{os.getpid()}.jsonl")
    assert (transcript.header.hooks, transcript.header.serve_args) == ("h.py", ("--timeout", "5"))
    assert [(e.dir, e.msg) for e in transcript.entries] == [("cli->hookd", {"a": 1})]


def test_serve_commands_are_recognised_with_their_hooks_and_options(tmp_path: Path) -> None:
    assert serve_invocation(["hookd", "serve", "h.py"]) == ["h.py"]
    assert serve_invocation([PY, "-m", "hookd", "serve", "--timeout", "5", "h.py"]) == [
        "--timeout",
        "5",
        "h.py",
    ]
    assert serve_invocation(["hookd", "check", "h.py"]) is None
    assert serve_invocation(["claude", "-p"]) is None
    hooks = tmp_path / "hooks" / "h.py"
    header = proxy_header(["hookd", "serve", "--timeout", "5", str(hooks)], tmp_path / "out.jsonl")
    assert header["hooks"] == "hooks/h.py"  # relative to the transcript
    assert header["serve_args"] == ["--timeout", "5"]
    assert header["mode"] == "sidecar"


def test_record_returns_the_commands_exit_status(tmp_path: Path) -> None:
    script = f"import os, sys; sys.exit(3 if os.environ['{RECORD_ENV}'] else 0)"
    assert record_env([PY, "-c", script], tmp_path / "out.jsonl") == 3


async def test_a_proxied_session_round_trips(tmp_path: Path) -> None:
    out = tmp_path / "session.jsonl"
    hooks = str(HOOKS / "real_allow.py")
    recorder = (
        PY,
        "-m",
        "hookd",
        "record",
        "--out",
        str(out),
        "--",
        PY,
        "-m",
        "hookd",
        "serve",
        hooks,
    )
    first = await replay(load(ALLOW), ReplayConfig(command=recorder))
    assert first.ok, format_report(first)

    session = load(out)
    assert session.header.mode == "sidecar"
    assert Path(str(session.hooks_spec())).resolve() == Path(hooks).resolve()
    played = [e.msg for e in load(ALLOW).entries if e.dir == "cli->hookd" and not host_only(e)]
    recorded = [e.msg for e in session.entries if e.dir == "cli->hookd"]
    assert [m.get("type") for m in recorded[1:-1]] == [m.get("type") for m in played]
    assert len([e for e in session.entries if e.dir == "hookd->cli"]) == 4 + 2  # + probes

    second = await replay(session)
    assert second.ok, format_report(second)
    assert len(second.plan.expected) == 6


CLI = """\
import json, subprocess, sys
hookd = subprocess.Popen([sys.executable, "-m", "hookd", "serve", sys.argv[1]],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
for line in sys.argv[2:]:
    hookd.stdin.write(line.encode() + b"\\n")
    hookd.stdin.flush()
    print(hookd.stdout.readline().decode(), end="")
hookd.stdin.close()
sys.exit(hookd.wait())
"""


async def test_env_mode_records_the_server_a_cli_spawns(tmp_path: Path) -> None:
    out = tmp_path / "session.jsonl"
    cli = tmp_path / "cli.py"
    cli.write_text(CLI)
    lines = [json.dumps(call("r1", "hook_1", STOP)), json.dumps(call("r2", "hook_9", STOP))]
    command = [
        PY,
        "-m",
        "hookd",
        "record",
        "--out",
        str(out),
        "--",
        PY,
        str(cli),
        SELFTEST,
        *lines,
    ]
    with trio.fail_after(30):
        done = await trio.run_process(command, capture_stdout=True)
    assert done.returncode == 0
    assert done.stdout.count(b"control_response") == 2

    session = load(out)
    assert Path(str(session.hooks_spec())).resolve() == Path(SELFTEST).resolve()
    assert [e.dir for e in session.entries] == ["cli->hookd", "hookd->cli"] * 2
    result = await replay(session)
    assert result.ok, format_report(result)


@pytest.mark.req("R-L07")
async def test_a_recording_masks_secrets_and_passes_the_bytes_on_as_they_are(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli_out, tee_in = trio.testing.memory_stream_one_way_pair()
    tee_out, _cli_in = trio.testing.memory_stream_one_way_pair()
    monkeypatch.setenv(RECORD_ENV, str(tmp_path / "s.jsonl"))
    monkeypatch.setattr(sys, "argv", ["hookd", "serve", str(tmp_path / "h.py")])
    receive, send = tee_from_env(tee_in, tee_out, hooks=str(tmp_path / "h.py"))
    secret = "sk-" + "a1b2c3d4" * 4
    line = json.dumps({"tool_input": {"command": f"curl -H 'Authorization: Bearer {secret}'"}})
    await cli_out.send_all(line.encode() + b"\n" + f"not json {secret}\n".encode())
    got = b""
    while got.count(b"\n") < 2:
        got += await receive.receive_some()
    assert got.count(secret.encode()) == 2  # the peer gets every byte
    await send.aclose()
    await receive.aclose()
    recorded = (tmp_path / "s.jsonl").read_text()
    assert secret not in recorded and recorded.count("[redacted]") >= 2
