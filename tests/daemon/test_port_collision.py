"""Two hooks modules that derive the same port: the second install moves to the next free one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.daemon.support import Box, hookd, read_settings

SETTINGS = Path(".claude") / "settings.local.json"


def derived_port(module: Path) -> int:
    from hookd.daemon.lifecycle import PORT_BASE, PORT_SPAN
    from hookd.daemon.where import module_key

    return PORT_BASE + int(module_key(str(module.resolve()))[-12:], 16) % PORT_SPAN


def claim(box: Box, key: str, port: int, module: str) -> None:
    """Another module's install record on ``port``."""
    other = box.state / "hookd" / "daemons" / key
    other.mkdir(parents=True)
    (other / "install.json").write_text(json.dumps({"module": module, "port": port}))


@pytest.mark.req("R-D56")
def test_a_port_another_module_owns_is_skipped_and_the_user_told(box: Box, module: Path) -> None:
    port = derived_port(module)
    claim(box, "other-0123456789ab", port, "/elsewhere/other.py")
    done = hookd(box, "install", ".claude/hooks.py", "--no-start")
    assert done.returncode == 0, done.stderr
    note = f"hookd: port {port} belongs to /elsewhere/other.py; {module} gets port "
    (line,) = [line for line in done.stdout.splitlines() if "belongs to" in line]
    assert line.startswith(note)
    moved = int(line.removeprefix(note))
    assert moved != port
    settings = read_settings(box.project / SETTINGS)
    (pre,) = settings["hooks"]["PreToolUse"]
    assert pre["hooks"][0]["url"].startswith(f"http://127.0.0.1:{moved}/hook/PreToolUse")
    (state,) = [d for d in box.daemon_dirs() if d.name != "other-0123456789ab"]
    assert json.loads((state / "install.json").read_text())["port"] == moved
    again = hookd(box, "install", ".claude/hooks.py", "--no-start")
    assert "belongs to" not in again.stdout  # remembered: no second move
    assert json.loads((state / "install.json").read_text())["port"] == moved


@pytest.mark.req("R-D56")
def test_a_running_daemon_of_another_module_owns_its_port(box: Box, module: Path) -> None:
    port = derived_port(module)
    ready = box.runtime / "hookd" / "other-0123456789ab.json"
    ready.parent.mkdir(mode=0o700, exist_ok=True)
    ready.write_text(json.dumps({"pid": 1, "port": port, "module": "/elsewhere/other.py"}))
    done = hookd(box, "install", ".claude/hooks.py", "--no-start")
    assert done.returncode == 0, done.stderr
    assert f"hookd: port {port} belongs to /elsewhere/other.py; " in done.stdout
