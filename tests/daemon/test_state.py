"""hookd's own state under stress: damaged files, racing first starts, ``up`` during ``down``,
private directories."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.daemon.support import HOOKD, Box, hookd, wait_for_line
from tests.daemon.test_lifecycle import PRE, free_port, ready_file

WAIT_S = 30.0


def _key_dir(box: Box, module: Path) -> Path:
    from hookd.daemon.where import module_key

    return box.state / "hookd" / "daemons" / module_key(str(module.resolve()))


def _not_utf8_token(box: Box, module: Path) -> Path:
    path = _key_dir(box, module) / "token"
    path.write_bytes(b"\xff\xfe not text")
    return path


def _token_is_a_directory(box: Box, module: Path) -> Path:
    path = _key_dir(box, module) / "token"
    path.unlink()
    path.mkdir()
    return path


def _log_is_a_directory(box: Box, module: Path) -> Path:
    path = _key_dir(box, module) / "daemon.log"
    path.unlink(missing_ok=True)
    path.mkdir()
    return path


def _state_dir_is_a_file(box: Box, module: Path) -> Path:
    path = _key_dir(box, module)
    for child in path.iterdir():
        child.unlink()
    path.rmdir()
    path.write_text("")
    return path


def _runtime_dir_is_open(box: Box, module: Path) -> Path:
    box.runtime.chmod(0o755)
    return box.runtime


DAMAGE: dict[str, Callable[[Box, Path], Path]] = {
    "token not UTF-8": _not_utf8_token,
    "token a directory": _token_is_a_directory,
    "log a directory": _log_is_a_directory,
    "state directory a file": _state_dir_is_a_file,
    "XDG_RUNTIME_DIR open to others": _runtime_dir_is_open,
}


@pytest.mark.req("R-D52")
@pytest.mark.parametrize("damage", list(DAMAGE))
def test_damaged_state_is_one_line_and_a_blocking_exit(box: Box, module: Path, damage: str) -> None:
    port = str(free_port())
    assert hookd(box, "up", str(module), "--port", port).returncode == 0
    assert hookd(box, "down").returncode == 0
    env = box.env()  # before the damage: it would restore the runtime directory's mode
    path = DAMAGE[damage](box, module)
    up = hookd(box, "up", "--quiet", str(module), "--port", port, env=env)
    call = hookd(box, "call", "PreToolUse", "--hooks", str(module), "--port", port,
                 stdin=json.dumps(PRE).encode(), env=env)  # fmt: skip
    for done, prefix in ((up, "hookd up: error: "), (call, "hookd call PreToolUse: blocked: ")):
        assert done.returncode == 2, done.stderr
        (line,) = done.stderr.splitlines()
        assert line.startswith(prefix) and str(path) in line, line
        assert done.stdout == ""


@pytest.mark.req("R-D25")
def test_every_directory_hookd_makes_is_private(box: Box, module: Path) -> None:
    (box.state / "hookd").mkdir(mode=0o755)  # left open by an older hookd
    (box.state / "hookd").chmod(0o755)
    assert hookd(box, "up", str(module), "--port", str(free_port())).returncode == 0
    key_dir = _key_dir(box, module)
    for directory in (box.state / "hookd", key_dir.parent, key_dir, box.runtime / "hookd"):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700, directory


@pytest.mark.req("R-D53")
def test_concurrent_first_ups_share_one_token_and_one_daemon(box: Box, module: Path) -> None:
    port = str(free_port())
    procs = [
        subprocess.Popen(
            [HOOKD, "up", str(module), "--port", port],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=box.env(),
        )
        for _ in range(6)
    ]
    outs = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0] * 6, [err for _, err in outs]
    pids = {out.split("pid ")[1].split()[0] for out, _ in outs}
    assert len(pids) == 1
    assert hookd(box, "call", "PreToolUse", "--hooks", str(module), "--port", port,
                 stdin=json.dumps(PRE).encode()).returncode == 0  # fmt: skip


def _pending_sigterm(pid: int) -> bool:
    status = Path(f"/proc/{pid}/status").read_text()
    pending = next(line for line in status.splitlines() if line.startswith("ShdPnd:"))
    return bool(int(pending.split()[1], 16) & (1 << (signal.SIGTERM - 1)))


@pytest.mark.req("R-D54")
def test_up_during_down_starts_a_new_daemon(box: Box, module: Path) -> None:
    """The daemon being stopped (held in SIGSTOP, so its SIGTERM waits) is not taken for running:
    ``up`` waits for ``down`` and starts a new one."""
    port = str(free_port())
    assert hookd(box, "up", str(module), "--port", port).returncode == 0
    old = json.loads(ready_file(box).read_text())["pid"]
    os.kill(old, signal.SIGSTOP)
    down = subprocess.Popen(
        [HOOKD, "down", "--all"], stdout=subprocess.PIPE, text=True, env=box.env()
    )  # --all: run from the tests' folder, not the box's project (R-U12)
    deadline = time.monotonic() + WAIT_S
    while not _pending_sigterm(old):  # `down` has signalled it and waits for it to end
        assert time.monotonic() < deadline and down.poll() is None
        time.sleep(0.01)
    assert not any((box.runtime / "hookd").glob("*.json"))  # no longer announced as running
    up = hookd(box, "up", str(module), "--port", port)
    assert down.wait(timeout=60) == 0
    assert up.returncode == 0, up.stderr
    assert up.stdout.startswith("hookd: started: pid ")
    assert json.loads(ready_file(box).read_text())["pid"] != old


@pytest.mark.req("R-D55")
def test_files_beside_the_module_do_not_shadow_hookds_libraries(box: Box, module: Path) -> None:
    marker = box.root / "shadowed"
    for name in ("watchfiles", "h11", "msgspec"):
        (module.parent / f"{name}.py").write_text(
            f"open({str(marker)!r}, 'a').write('{name}\\n')\nraise ImportError('shadow')\n"
        )
    port = str(free_port())
    done = hookd(box, "up", str(module), "--port", port)
    assert done.returncode == 0, done.stderr
    log = _key_dir(box, module) / "daemon.log"
    wait_for_line(log, "reload.watching", WAIT_S)  # the daemon imported watchfiles after it
    call = hookd(box, "call", "PreToolUse", "--hooks", str(module), "--port", port,
                 stdin=json.dumps(PRE).encode())  # fmt: skip
    assert call.returncode == 0, call.stderr
    module.write_text(module.read_text() + "\n")  # a reload: checked in a child process first
    wait_for_line(log, "reload.done", WAIT_S)
    assert not marker.exists(), marker.read_text()


@pytest.mark.req("R-D20")
@pytest.mark.parametrize("command", ["up", "call"])
def test_a_short_hookd_token_is_one_line(box: Box, module: Path, command: str) -> None:
    port = str(free_port())
    args = ["up", str(module)] if command == "up" else ["call", "Setup", "--hooks", str(module)]
    done = hookd(box, *args, "--port", port, "--token-env", stdin=b"{}",
                 env=box.env(HOOKD_TOKEN="too-short"))  # fmt: skip
    assert done.returncode == 1
    (line,) = done.stderr.splitlines()
    assert line == (
        f"hookd {command}: error: HOOKD_TOKEN has 9 characters, at least 16 are needed "
        "(a random string, e.g. `openssl rand -hex 32`)"
    )


@pytest.mark.req("R-D52")
def test_down_with_a_damaged_lock_is_one_line(box: Box, module: Path) -> None:
    assert hookd(box, "up", str(module), "--port", str(free_port())).returncode == 0
    (lock,) = (box.runtime / "hookd").glob("*.lock")
    lock.unlink()
    lock.mkdir()
    done = hookd(box, "down")
    assert done.returncode == 1
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"hookd down: error: {lock}: ")
    lock.rmdir()
    assert "hookd: stopped pid " in hookd(box, "down").stdout
