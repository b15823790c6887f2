"""The session bench reads each hook's time from the CLI's debug log as the CLI wrote it."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.cli_debug import hook_times

LOG = """\
2026-11-23T13:09:39.520Z [DEBUG] Hooks: checkForNewResponses returning 0 responses
2026-11-23T13:09:39.608Z [DEBUG] Hooks: SessionStart:startup [/v/bin/hookd up --quiet /p/hooks.py \
--port 21832 #hookd=hooks-7] finished with status 0 (85ms)
2026-11-23T13:09:39.910Z [DEBUG] Hooks: HTTP hook POST to http://127.0.0.1:21832/hook/PreToolUse
2026-11-23T13:09:39.926Z [DEBUG] Hooks: HTTP hook response status 200, body length 2
2026-11-23T13:09:40.001Z [DEBUG] Something else: HTTP hook POST to nowhere
2026-11-23T13:09:40.100Z [DEBUG] Hooks: HTTP hook POST to http://127.0.0.1:21832/hook/PostToolUse
2026-11-23T13:09:40.103Z [DEBUG] Hooks: HTTP hook response status 200, body length 2
2026-11-23T13:09:40.200Z [DEBUG] Hooks: PreToolUse:Bash [python3 h.py] finished \
with status 2 (40ms)
"""


def test_command_and_http_hook_times(tmp_path: Path) -> None:
    log = tmp_path / "debug.txt"
    log.write_text(LOG)
    times = hook_times(log)
    assert times.command_ms == [85.0, 40.0]
    assert times.http_ms == pytest.approx([16.0, 3.0])
    assert times.total_ms == pytest.approx(144.0)
