"""Pinning recorded sessions: a test replays a transcript and fails with `hookd replay`'s diff."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import hookd.testing
from hookd.testing import ReplayMismatch
from hookd.transcript.replay import ReplayResult
from tests.cli.console import hookd as run_console
from tests.testing.project import run_pytest, write

ROOT = Path(__file__).resolve().parents[2]
DENY = ROOT / "conformance" / "transcripts" / "v2.1.330_deny.jsonl"
ALLOW_HOOKS = ROOT / "conformance" / "hooks" / "real_allow.py"
HOST_DENY = ROOT / "conformance" / "transcripts" / "host_deny.jsonl"
HTTP_SESSION = ROOT / "conformance" / "transcripts" / "http_session.jsonl"
STDERR_MARKERS = ("  hookd stderr (last lines):", "  hookd stderr (tail):")


def report_lines(text: str) -> list[str]:
    """The diff part of a report (hookd's stderr tail differs from run to run)."""
    lines = text.splitlines()
    for marker in STDERR_MARKERS:
        if marker in lines:
            lines = lines[: lines.index(marker)]
    return lines


@pytest.mark.req("R-707")
def test_a_recorded_cli_session_replays_green_against_its_hooks() -> None:
    result = hookd.testing.assert_replays(DENY)
    assert isinstance(result, ReplayResult)
    assert result.ok
    assert len(result.plan.expected) > 0


@pytest.mark.req("R-707")
def test_host_mode_transcripts_replay_too() -> None:
    assert hookd.testing.assert_replays(HOST_DENY).ok


@pytest.mark.req("R-707")
def test_http_transcripts_replay_against_hookd_serve_http() -> None:
    result = hookd.testing.assert_replays(HTTP_SESSION)
    assert result.ok
    with pytest.raises(ReplayMismatch) as caught:
        hookd.testing.assert_replays(HTTP_SESSION, hooks=ALLOW_HOOKS)
    cli = run_console("replay", str(HTTP_SESSION), "--hooks", str(ALLOW_HOOKS))
    assert cli.returncode == 1
    assert report_lines(str(caught.value)) == report_lines(cli.stdout)
    assert report_lines(str(caught.value))[0].startswith(f"FAIL {HTTP_SESSION}:")
    assert any("permissionDecision" in line for line in report_lines(str(caught.value)))


@pytest.mark.req("R-707")
def test_a_changed_hook_fails_with_the_same_diff_as_hookd_replay() -> None:
    with pytest.raises(ReplayMismatch) as caught:
        hookd.testing.assert_replays(DENY, hooks=ALLOW_HOOKS)
    cli = run_console("replay", str(DENY), "--hooks", str(ALLOW_HOOKS))
    assert cli.returncode == 1
    assert report_lines(str(caught.value)) == report_lines(cli.stdout)
    assert report_lines(str(caught.value))[0].startswith(f"FAIL {DENY}:")
    assert any("permissionDecision" in line for line in report_lines(str(caught.value)))


@pytest.mark.req("R-707")
def test_the_fixture_resolves_files_beside_the_test(
    hookd_replay: Callable[..., object], tmp_path: Path
) -> None:
    result = hookd_replay(DENY)
    assert getattr(result, "ok", False)
    with pytest.raises(ReplayMismatch):
        hookd_replay(DENY, hooks=ALLOW_HOOKS)


@pytest.mark.hookd_replay(str(DENY))
def test_the_marker_replays_before_the_body() -> None:
    """The marker alone pins the session; the body has nothing left to do."""


@pytest.mark.req("R-707")
def test_a_failing_marker_fails_the_test_with_the_report(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pytest.ini": "[pytest]\n",
            "test_pinned.py": f"""
                import pytest

                @pytest.mark.hookd_replay({str(DENY)!r}, hooks={str(ALLOW_HOOKS)!r})
                def test_pinned():
                    pass
                """,
        },
    )
    done = run_pytest(tmp_path, "-p", "no:asyncio")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed" in done.stdout
    assert f"FAIL {DENY}:" in done.stdout
    assert "permissionDecision" in done.stdout
    assert "Traceback" not in done.stdout


@pytest.mark.req("R-707")
def test_a_marker_naming_a_missing_transcript_is_a_one_line_failure(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pytest.ini": "[pytest]\n",
            "test_pinned.py": f"""
                import pytest

                @pytest.mark.hookd_replay("missing.jsonl", hooks={str(ALLOW_HOOKS)!r})
                def test_pinned():
                    pass
                """,
        },
    )
    done = run_pytest(tmp_path, "-p", "no:asyncio")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed" in done.stdout
    failure = "@pytest.mark.hookd_replay: missing.jsonl: cannot read: [Errno 2] No such file"
    assert failure in done.stdout
    assert "Traceback" not in done.stdout and "format.py" not in done.stdout
