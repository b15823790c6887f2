"""The real pi (``@mariozechner/pi-coding-agent``, pinned) guarded by a real hookd daemon through
the extension ``hookd install --agent pi`` writes (``.pi/extensions/hookd-KEY.ts``), offline.

``pi -p`` plays a fake Chat Completions model (tests/support/pi_drive.py) in a project where
hookd's extension sits beside the user's own; the model's shell calls are real commands on
real files. The session starts with the daemon down, as after an idle exit: the extension's
first call starts it.

``HOOKD_RECORD_AGENTS=1`` records the session (the daemon up, recording) and rewrites
``conformance/transcripts/agents/pi.jsonl``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.agents.real.plugin_project import (
    REASON,
    RECORDING,
    PluginProject,
    plugin_project,
    start_recording,
    write_transcript,
)
from tests.agents.real.test_opencode import TOOLS_ONLY
from tests.support.pi_drive import PiBox, PiRun, drive

pytestmark = pytest.mark.real_cli


def run_pi(project: PluginProject, steps: list[str], **env: str) -> PiRun:
    """``pi -p`` in the project, with the box's HOME and XDG folders (``hookd up`` finds the
    daemon's files there)."""
    run = drive(steps, box=PiBox(project.box.root), env={**project.box.env(), **env})
    assert run.returncode == 0, run.output
    return run


@pytest.mark.req("R-A86", "R-A15")
def test_the_extension_guards_the_session_and_uninstall_gives_the_folder_back(
    tmp_path: Path,
) -> None:
    with plugin_project(tmp_path, "pi") as project:
        (extension,) = project.installed()
        own_before = project.own.read_bytes()
        env = {}
        if RECORDING:
            recording, out = start_recording(project)
            env["HOOKD_RECORD_ID"] = recording
        else:
            project.hookd("down", str(project.module))  # the extension starts it on first use
        run = run_pi(project, ["rm -rf victim_dir", "echo ok > harmless.txt"], **env)
        if RECORDING:
            write_transcript(project, recording, out)
        assert (project.victim / "keep.txt").read_text() == "precious\n"
        assert (project.box.project / "harmless.txt").read_text() == "ok\n"
        # pi's block reason, naming context.agent, is the tool result the model reads
        assert run.tool_results == [f"{REASON} (asked by pi)", "(no output)"]
        prompts = [m for m in run.requests[0]["messages"] if m["role"] == "user"]
        assert "hookd-guard is watching this session" in json.dumps(prompts)
        seen = [c.get("command") for c in project.seen_by_own()]
        assert "echo ok > harmless.txt" in seen  # the user's own extension ran beside hookd's
        status = json.loads(project.hookd("status", "--agent", "pi", "--json").stdout)
        assert status[0]["agents"]["pi"]["calls"] >= 3  # the prompt and both tool calls
        assert status[0]["configs"] == {str(extension): "pi"}
        done = project.hookd("uninstall", "--agent", "pi", str(project.module))
        assert "daemon stopped" in done.stdout
        assert sorted(p.name for p in project.folder.iterdir()) == ["own.ts"]
        assert project.own.read_bytes() == own_before


@pytest.mark.req("R-A87")
def test_a_daemon_that_cannot_start_still_stops_the_call(tmp_path: Path) -> None:
    with plugin_project(tmp_path, "pi", guard=TOOLS_ONLY) as project:
        project.hookd("down", str(project.module))
        project.module.unlink()  # `hookd up` cannot start it again
        run = run_pi(project, ["rm -rf victim_dir"])
    assert (project.victim / "keep.txt").exists()
    down = (
        f"hookd: the hookd daemon is not running on 127.0.0.1:{project.port} and did not start: "
        f"{project.module}: no such file"
    )
    assert run.tool_results == [down]
