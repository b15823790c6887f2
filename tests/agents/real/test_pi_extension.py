"""The real pi (pinned) with ``hookd/agents/plugins/hookd-pi.ts`` in its project, offline.

Against a stand-in daemon (:mod:`tests.support.pi_daemon`: hookd's own route and the pi
dialect, proven by a ready file naming the test process): a deny reaches the model and the
folder survives, a rewrite runs the new command, a prompt's context reaches the model, the
token goes in the header. With no daemon proven (none, a stale start time, no answer within
the deadline) the prompt is not run and every tool call is blocked with one line, unless the
extension fails open. The real daemon, which the extension starts itself:
tests/agents/real/test_pi.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.pi_daemon import stand_in
from tests.support.pi_drive import PiBox, PiRun, drive

pytestmark = pytest.mark.real_cli

ROOT = Path(__file__).resolve().parents[3]
GUARD = ROOT / "tests" / "hooks" / "agent_guard.py"
ROUTES = {"tool_call": (10, True), "tool_result": (10, False), "input": (10, True)}
STEPS = ["rm -rf victim_dir", "python -c 'print(1)' > py.txt", "echo ok > harmless.txt"]


def _project(root: Path) -> PiBox:
    box = PiBox(root).make()
    (box.project / "victim_dir").mkdir()
    (box.project / "victim_dir" / "keep.txt").write_text("keep me")
    return box


def _run(box: PiBox, source: str, steps: list[str] = STEPS) -> PiRun:
    run = drive(steps, box=box, extensions={"hookd-pi.ts": source})
    assert run.returncode == 0, run.output
    return run


def _all_blocked(box: PiBox, run: PiRun, line: str) -> None:
    assert (box.project / "victim_dir" / "keep.txt").exists()
    assert not (box.project / "harmless.txt").exists()
    assert len(run.tool_results) == 3
    for text in run.tool_results:
        assert text.startswith("hookd: ") and line in text and "\n" not in text, text


@pytest.mark.req("R-A83")
def test_the_daemons_answers_are_obeyed(tmp_path: Path) -> None:
    box = _project(tmp_path / "pi")
    with stand_in(tmp_path / "daemon", GUARD) as daemon:
        run = _run(box, daemon.extension(routes=ROUTES))
    assert (box.project / "victim_dir" / "keep.txt").exists()
    assert (box.project / "harmless.txt").read_text() == "ok\n"
    denied, rewritten, harmless = run.tool_results
    assert denied == "no recursive deletes"
    assert (rewritten, harmless) == ("(no output)", "(no output)")
    results = [body for target, body, _ in daemon.received if target == "pi/tool_result"]
    assert [r["tool_input"]["command"] for r in results] == [
        "python3 -c 'print(1)' > py.txt",
        "echo ok > harmless.txt",
    ]  # the rewrite ran; the denied call has no result
    prompts = [m for m in run.requests[0]["messages"] if m["role"] == "user"]
    assert [m["content"][0]["text"] for m in prompts] == ["run the steps", "run the tests first"]
    assert daemon.events()[0] == "pi/input"
    assert {h["authorization"] for _, _, h in daemon.received} == {f"Bearer {daemon.token}"}


@pytest.mark.req("R-A83")
def test_no_daemon_refuses_the_prompt(tmp_path: Path) -> None:
    box = _project(tmp_path / "pi")
    with stand_in(tmp_path / "daemon", GUARD) as daemon:
        daemon.ready_file.unlink()
        run = _run(box, daemon.extension(routes=ROUTES))
        assert daemon.received == []
    line = f"hookd: the hookd daemon is not running on 127.0.0.1:{daemon.port}"
    assert run.stderr.splitlines() == [line]  # shown to the user; the prompt is not run
    assert run.requests == []
    assert (box.project / "victim_dir" / "keep.txt").exists()


@pytest.mark.req("R-A83")
def test_a_listener_not_proven_is_never_sent_the_token(tmp_path: Path) -> None:
    box = _project(tmp_path / "pi")
    with stand_in(tmp_path / "daemon", GUARD) as daemon:
        daemon.write_files(ticks=1)  # this pid, another start time: a recycled pid
        run = _run(box, daemon.extension(routes={"tool_call": (10, True)}))
        assert daemon.received == []
    _all_blocked(box, run, "is not running; port")


@pytest.mark.req("R-A83")
def test_no_answer_within_the_deadline_blocks(tmp_path: Path) -> None:
    box = _project(tmp_path / "pi")
    with stand_in(tmp_path / "daemon", GUARD) as daemon:
        daemon.answer = "hang"
        run = _run(box, daemon.extension(routes={"tool_call": (1, True)}))
    _all_blocked(box, run, "no whole answer from the hookd daemon within 1s")


@pytest.mark.req("R-A83")
def test_fail_open_lets_calls_run_without_a_daemon(tmp_path: Path) -> None:
    box = _project(tmp_path / "pi")
    with stand_in(tmp_path / "daemon", GUARD) as daemon:
        daemon.ready_file.unlink()
        run = _run(box, daemon.extension(routes={"tool_call": (10, True)}, fail_open=True),
                   ["echo ok > harmless.txt"])  # fmt: skip
    assert (box.project / "harmless.txt").read_text() == "ok\n"
    assert "hookd: the hookd daemon is not running" in run.stderr
