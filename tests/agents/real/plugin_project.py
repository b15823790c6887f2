"""What the real OpenCode, Kilo CLI and pi tests share: a project where ``hookd install --agent``
wrote hookd's plugin, the user's own plugin beside it, and the recording of a session.

A :class:`PluginProject` is a private home (``tests.daemon.support.Box``, a git work tree as
its project) holding a copy of ``conformance/hooks/agents_guard.py`` and a plugin of the
user's own in the agent's plugin folder, which appends each tool call it sees to a file. The
guard's ``rm -rf`` deny names ``context.agent``, and its matcher is ``Bash``: the model reading
``... (asked by opencode)`` proves both.

With ``HOOKD_RECORD_AGENTS=1`` the session runs while the daemon records it (``POST
/record/start``; the plugin sends ``X-Hookd-Record`` from ``HOOKD_RECORD_ID``), and
:func:`write_transcript` turns the body each plugin POSTed and the daemon's answer into
``conformance/transcripts/agents/AGENT.jsonl``, in the shim transcripts' format (a plugin
reads an answer as the shim does: exit 0 and the body).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookd.daemon.client import request
from hookd.daemon.where import module_key, state_dir, token_file
from tests.agents.test_shim import free_port
from tests.daemon.support import Box, hookd
from tests.support.agent_clis import PINNED

__all__ = ["GUARD", "REASON", "RECORDING", "PluginProject", "plugin_project", "write_transcript"]

ROOT = Path(__file__).resolve().parents[3]
GUARD = ROOT / "conformance" / "hooks" / "agents_guard.py"
TRANSCRIPTS = ROOT / "conformance" / "transcripts" / "agents"
#: The guard's reason for a denied ``rm -rf`` (`` (asked by AGENT)`` follows it).
REASON = "hookd-guard: rm -rf is not allowed here"
RECORDING = os.environ.get("HOOKD_RECORD_AGENTS") == "1"
#: The user's own plugin: each file's source, by agent (it logs every tool call to LOG).
OWN_PLUGIN = {
    "opencode": """import { appendFileSync } from "node:fs"
export const Own = async () => ({
  "tool.execute.before": async (input: any, output: any) => {
    appendFileSync(LOG, JSON.stringify(output.args) + "\\n")
  },
})
""",
    "pi": """import { appendFileSync } from "node:fs"
export default function (pi: any) {
  pi.on("tool_call", async (event: any) => {
    appendFileSync(LOG, JSON.stringify(event.input) + "\\n")
  })
}
""",
}
FOLDERS = {"opencode": ".opencode/plugins", "kilo": ".kilo/plugins", "pi": ".pi/extensions"}


@dataclass(frozen=True)
class PluginProject:
    """A project guarded by a copy of the agents' guard through ``agent``'s hookd plugin."""

    box: Box
    agent: str
    module: Path
    port: int

    @property
    def folder(self) -> Path:
        """The agent's project plugin folder."""
        return self.box.project / FOLDERS[self.agent]

    @property
    def own(self) -> Path:
        return self.folder / "own.ts"

    @property
    def own_log(self) -> Path:
        return self.box.root / "own.jsonl"

    @property
    def victim(self) -> Path:
        return self.box.project / "victim_dir"

    def hookd(self, *args: str) -> subprocess.CompletedProcess[str]:
        done = hookd(self.box, *args)
        assert done.returncode == 0, done.stderr
        return done

    def installed(self) -> list[Path]:
        """hookd's plugin files in the folder (by their name)."""
        return sorted(self.folder.glob("hookd-*.ts"))

    def seen_by_own(self) -> list[dict[str, Any]]:
        text = self.own_log.read_text() if self.own_log.exists() else ""
        return [json.loads(line) for line in text.splitlines()]


@contextmanager
def plugin_project(root: Path, agent: str, *, guard: str | None = None) -> Iterator[PluginProject]:
    """``hookd install --agent AGENT`` of the guard (``guard``: another module's text) into a
    new project under ``root`` beside the user's own plugin; every daemon stopped after."""
    box = Box(root)
    box.env()
    subprocess.run(["git", "init", "-q", str(box.project)], check=True, timeout=30)
    module = box.project / ".hookd" / "agents_guard.py"
    module.parent.mkdir()
    if guard is None:
        shutil.copy(GUARD, module)
    else:
        module.write_text(guard)
    project = PluginProject(box, agent, module, free_port())
    project.folder.mkdir(parents=True)
    own = OWN_PLUGIN["pi" if agent == "pi" else "opencode"]
    project.own.write_text(own.replace("LOG", json.dumps(str(project.own_log))))
    victim = project.victim
    victim.mkdir()
    (victim / "keep.txt").write_text("precious\n")
    done = project.hookd("install", "--agent", agent, str(module), "--port", str(project.port))
    assert "hookd's plugin; " in done.stdout, done.stdout
    try:
        yield project
    finally:
        hookd(box, "down")


def _token(project: PluginProject) -> str:
    key = module_key(str(project.module.resolve()))
    path = Path(token_file(state_dir(str(project.box.state / "hookd"), key)))
    return path.read_text().strip()


def start_recording(project: PluginProject) -> tuple[str, Path]:
    """Ask the running daemon to record the session that sends ``X-Hookd-Record: ID``."""
    recording, out = secrets.token_hex(8), project.box.root / "recorded.jsonl"
    body = json.dumps({"id": recording, "out": str(out)}).encode()
    reply = request("127.0.0.1", project.port, "POST", "/record/start", token=_token(project),
                    body=body)  # fmt: skip
    assert reply.status == 200, reply.body
    return recording, out


def write_transcript(project: PluginProject, recording: str, out: Path) -> None:
    """Stop the recording; ``conformance/transcripts/agents/AGENT.jsonl`` from it: a header,
    then each POST the plugin made (its event and body) and the daemon's answer."""
    body = json.dumps({"id": recording}).encode()
    reply = request("127.0.0.1", project.port, "POST", "/record/stop", token=_token(project),
                    body=body)  # fmt: skip
    assert reply.status == 200, reply.body
    asked: dict[int, dict[str, Any]] = {}
    calls = []
    for line in out.read_text().splitlines()[1:]:  # after the http transcript's header
        entry = json.loads(line)
        if entry["dir"] == "cli->hookd":
            asked[entry["conn"]] = entry
            continue
        sent = asked.pop(entry["conn"])
        assert "msg" in entry or entry.get("raw") == "", entry  # exit 0: JSON, or nothing
        answer = json.dumps(entry["msg"], separators=(",", ":")) if "msg" in entry else ""
        event = sent["http"]["target"].split("/")[-1]
        calls.append({"agent_event": event, "payload": sent["msg"], "exit_code": 0,
                      "stdout": answer, "stderr": ""})  # fmt: skip
    assert calls, "the recording holds no call"
    cli = PINNED[project.agent]
    header = {
        "hookd_agent_transcript": 1,
        "agent": project.agent,
        "cli": f"{cli.package}@{cli.version}",
        "module": str(GUARD.relative_to(ROOT)),
    }
    lines = [json.dumps(header), *(json.dumps(call) for call in calls)]
    TRANSCRIPTS.mkdir(parents=True, exist_ok=True)
    (TRANSCRIPTS / f"{project.agent}.jsonl").write_text("\n".join(lines) + "\n")
