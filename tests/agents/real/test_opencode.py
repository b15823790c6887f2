"""The real OpenCode (``opencode-ai``, pinned) and Kilo CLI (``@kilocode/cli``) guarded by a real
hookd daemon through the plugin ``hookd install --agent opencode|kilo`` writes, offline.

``AGENT run`` plays a fake Chat Completions model (tests/support/opencode_drive.py) in a project
where hookd's plugin (``.opencode/plugins/hookd-KEY.ts``, ``.kilo/plugins/``) sits beside the
user's own; the model's shell calls are real commands on real files. The session starts with
the daemon down, as after an idle exit: the plugin's first call starts it. Kilo CLI takes 20 s
to start and longer on a busy machine, so each CLI runs twice in all.

``HOOKD_RECORD_AGENTS=1`` records the session (the daemon up, recording) and rewrites
``conformance/transcripts/agents/opencode.jsonl`` and ``kilo.jsonl``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.agents.real.plugin_project import (
    GUARD,
    REASON,
    RECORDING,
    plugin_project,
    start_recording,
    write_transcript,
)
from tests.support.opencode_drive import AGENTS, drive

pytestmark = pytest.mark.real_cli

#: The guard without its UserPromptSubmit hook: a prompt refused would end the run first.
TOOLS_ONLY = "".join(
    line
    for line in GUARD.read_text().splitlines(keepends=True)
    if not line.lstrip().startswith('"UserPromptSubmit"')
)


@pytest.mark.req("R-A84", "R-A15")
@pytest.mark.parametrize("agent", AGENTS)
def test_the_plugin_guards_the_session_and_uninstall_gives_the_folder_back(
    tmp_path: Path, agent: str
) -> None:
    with plugin_project(tmp_path, agent) as project:
        (plugin,) = project.installed()
        own_before = project.own.read_bytes()
        env = {}
        if RECORDING:
            recording, out = start_recording(project)
            env["HOOKD_RECORD_ID"] = recording
        else:
            project.hookd("down", str(project.module))  # the plugin starts it on first use
        run = drive(project.box, agent, ["rm -rf victim_dir", "echo ok > harmless.txt"], env=env)
        assert run.exit_code == 0, run.stderr[-2000:]
        if RECORDING:
            write_transcript(project, recording, out)
        assert (project.victim / "keep.txt").read_text() == "precious\n"
        assert (project.box.project / "harmless.txt").read_text() == "ok\n"
        # the module's reason, naming context.agent, is the tool result the model reads
        assert run.tool_results == [f"{REASON} (asked by {agent})", "(no output)"]
        seen = [c.get("command") for c in project.seen_by_own()]
        assert "echo ok > harmless.txt" in seen  # the user's own plugin ran beside hookd's
        status = json.loads(project.hookd("status", "--agent", agent, "--json").stdout)
        assert status[0]["agents"][agent]["calls"] >= 3  # the prompt and both tool calls
        assert status[0]["configs"] == {str(plugin): agent}
        done = project.hookd("uninstall", "--agent", agent, str(project.module))
        assert "daemon stopped" in done.stdout
        assert sorted(p.name for p in project.folder.iterdir()) == ["own.ts"]
        assert project.own.read_bytes() == own_before


@pytest.mark.req("R-A85")
@pytest.mark.parametrize("agent", AGENTS)
def test_a_daemon_that_cannot_start_still_stops_the_call(tmp_path: Path, agent: str) -> None:
    with plugin_project(tmp_path, agent, guard=TOOLS_ONLY) as project:
        project.hookd("down", str(project.module))
        project.module.unlink()  # `hookd up` cannot start it again
        run = drive(project.box, agent, ["rm -rf victim_dir"])
    assert run.exit_code == 0, run.stderr[-2000:]
    assert (project.victim / "keep.txt").exists()
    down = (
        f"hookd: the hookd daemon is not running on 127.0.0.1:{project.port} and did not start: "
        f"{project.module}: no such file"
    )
    assert run.tool_results == [down]
