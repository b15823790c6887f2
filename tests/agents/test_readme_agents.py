"""The README's agent shim command, run as written against a served module."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import trio

from hookd.agents import SHIM
from tests.agents.test_agent_route import DENIED, GUARD
from tests.serve.http.client import serve_http

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.req("R-A08")
async def test_the_readme_shim_line_answers_as_documented(tmp_path: Path) -> None:
    (line,) = re.findall(r"^bash /path/to/hookd-agent\.sh .*$", README, re.M)
    assert "~/.config/hookd-token" in line and " 8765 " in line
    async with serve_http(tmp_path, hooks=GUARD) as served:
        command = (
            line.replace("/path/to/hookd-agent.sh", SHIM)
            .replace(" 8765 ", f" {served.port} ")
            .replace("~/.config/hookd-token", str(tmp_path / "token"))
        )
        gemini = next(payload for agent, _, payload, _ in DENIED if agent == "gemini")
        with trio.fail_after(10):
            done = await trio.run_process(
                ["bash", "-c", command], stdin=json.dumps(gemini).encode(),
                capture_stdout=True, capture_stderr=True, check=False,
            )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"decision": "deny", "reason": "no recursive deletes"}
