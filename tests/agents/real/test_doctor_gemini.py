"""``hookd doctor`` reads Gemini CLI's folder trust and its hooks switch as the real Gemini CLI
(``@google/gemini-cli``, pinned, offline) does: with folder trust on and the project not in
``~/.gemini/trustedFolders.json``, doctor fails and Gemini refuses to run there headless; once
the folder is trusted as Gemini records it, doctor passes and Gemini's BeforeTool hook denies
the guarded command; ``hooksConfig.enabled: false`` in the project's settings (JSON with a
comment, as Gemini reads it) fails doctor, and Gemini indeed runs the command unguarded."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.agents.real.test_gemini import BLOCKED, MODEL, RUN_TIMEOUT_S, Run, Session, _session
from tests.daemon.support import hookd
from tests.support.agent_clis import agent_cli
from tests.support.gemini_fake import reply, shell_call, user_settings, write_responses

pytestmark = pytest.mark.real_cli


def gemini_trusting(session: Session) -> Run:
    """``gemini -p`` with folder trust on (its default), the model asking for ``rm -rf``."""
    box = session.box
    fake = write_responses(box.root / "fake.jsonl", [shell_call("rm -rf victim"), reply("done")])
    telemetry = box.root / "telemetry.log"
    telemetry.unlink(missing_ok=True)
    settings = user_settings(telemetry)
    settings["security"]["folderTrust"]["enabled"] = True
    user = box.home / ".gemini" / "settings.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(json.dumps(settings))
    argv = [str(agent_cli("gemini")), "--fake-responses-non-strict", str(fake), "-m", MODEL,
            "--yolo", "-o", "stream-json", "-p", "tidy up the project"]  # fmt: skip
    proc = subprocess.run(
        argv, cwd=box.project, env=session.env(), stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False,
    )  # fmt: skip
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return Run(proc, events, telemetry)


def doctor(session: Session) -> tuple[int, list[str]]:
    done = hookd(session.box, "doctor", env=session.env())
    return done.returncode, [line.strip() for line in done.stdout.splitlines()]


@pytest.mark.req("R-U15", "R-U17")
def test_doctor_reads_gemini_trust_and_switch_as_gemini_does(tmp_path: Path) -> None:
    session = _session(tmp_path)
    victim = session.box.project / "victim" / "keep.txt"
    try:
        session.install()
        status, lines = doctor(session)
        assert status == 1
        assert (
            f"FAIL  trust: gemini runs project hooks only in a trusted folder, and "
            f"~/.gemini/trustedFolders.json does not trust {session.box.project}"
        ) in lines
        refused = gemini_trusting(session)
        assert refused.proc.returncode != 0 and "not running in a trusted directory" in (
            refused.proc.stderr
        )
        assert victim.exists()

        trusted = session.box.home / ".gemini" / "trustedFolders.json"
        trusted.write_text(json.dumps({str(session.box.project): "TRUST_FOLDER"}, indent=2))
        status, lines = doctor(session)
        assert status == 0, "\n".join(lines)
        guarded = gemini_trusting(session)
        assert guarded.proc.returncode == 0, guarded.proc.stderr
        assert [r["output"] for r in guarded.tool_results()] == [BLOCKED]
        assert victim.exists()

        config = json.loads(session.settings.read_text())
        session.settings.write_text(
            "// the user's: hooks off for now\n"
            + json.dumps({**config, "hooksConfig": {"enabled": False}}, indent=2)
        )
        status, lines = doctor(session)
        assert status == 1
        at = lines.index(
            "FAIL  enabled: hooksConfig.enabled: false in .gemini/settings.json turns every "
            "gemini hook off"
        )
        assert lines[at + 1] == "fix: remove hooksConfig.enabled from .gemini/settings.json"
        unguarded = gemini_trusting(session)
        assert unguarded.proc.returncode == 0, unguarded.proc.stderr
        assert not victim.exists()  # doctor was right: no hook ran
    finally:
        hookd(session.box, "down", "--all", env=session.env())
