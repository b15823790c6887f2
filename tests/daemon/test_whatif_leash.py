"""``hookd whatif`` keeps its candidate on a leash: a load deadline, its output bounded (no file
of it anywhere), and the candidate's process group killed when the replay ends.

Each test runs the console script against a decision log written with the store's API, with
a candidate that misbehaves at import time or in its hooks.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import time
from pathlib import Path

import pytest

from hookd.decision.store import Store, rows_of
from tests.daemon.support import HOOKD, Box, hookd
from tests.daemon.test_decision_log import bash
from tests.daemon.test_whatif import MODULE, _record, candidate, store_of

CALLS = 10
#: The file size ``hookd whatif`` may write while a candidate prints 50 MB (RLIMIT_FSIZE):
#: its output spooled to a file, as it was, kills it with SIGXFSZ.
FILE_LIMIT = 1024 * 1024

GUARD = """
from hookd import HookMatcher, deny

async def guard(input_data, tool_use_id, context):
    return deny("the candidate denies all")

hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard])]}
"""


@pytest.fixture
def logged(box: Box) -> Path:
    """A hooks module whose decision log holds :data:`CALLS` allowed Bash calls."""
    module = box.project / "hooks.py"
    module.write_text(MODULE)
    path = store_of(box, module)
    path.parent.mkdir(parents=True)
    store = Store(str(path))
    store.add(rows_of(_record("claude", "PreToolUse", bash(f"ls {i}"), "none")
                      for i in range(CALLS)))  # fmt: skip
    store.close()
    return module


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its parent does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def running(word: str) -> list[int]:
    """The live processes whose command line holds ``word``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if word.encode() in words and alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def group_members(pgid: int) -> list[int]:
    """The live processes of process group ``pgid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(entry.name))
    return found


@pytest.mark.req("R-L53")
def test_a_candidate_that_never_loads_is_killed_at_the_deadline(box: Box, logged: Path) -> None:
    stuck = candidate(box, "import time\ntime.sleep(3600)\n", "stuck.py")
    started = time.monotonic()
    done = hookd(box, "whatif", str(stuck), str(logged), "--load-timeout", "1")
    took = time.monotonic() - started
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == (f"hookd whatif: error: {stuck}: did not load within 1s "
                           "(--load-timeout); its process was killed\n")  # fmt: skip
    assert took < 30  # the deadline, not the sleep (an hour)
    assert running(str(stuck)) == []  # its process killed, loaded or not yet


@pytest.mark.req("R-L54")
def test_a_candidate_that_floods_its_output_is_replayed_in_bounded_space(
    box: Box, logged: Path
) -> None:
    loud = candidate(box, "import sys\nsys.stdout.write('x' * 50_000_000 + '\\n')\n" + GUARD,
                     "loud.py")  # fmt: skip

    def small_files() -> None:  # any file hookd writes stays under FILE_LIMIT, or it dies
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))

    done = subprocess.run(
        [HOOKD, "whatif", str(loud), str(logged), "--json"], capture_output=True, text=True,
        cwd=box.project, env=box.env(), preexec_fn=small_files, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 3, (done.returncode, done.stderr[-500:])
    summary = json.loads(done.stdout.splitlines()[-1])
    assert summary["replayed"] == CALLS and summary["changes"] == {"none->deny": CALLS}
    assert done.stderr == ""


@pytest.mark.req("R-L55")
def test_processes_a_candidate_forked_do_not_outlive_whatif(box: Box, logged: Path) -> None:
    pid_file = box.project / "grandchild.pid"
    forks = candidate(box, f"""
import os, subprocess
child = subprocess.Popen(["sleep", "3600"])  # a helper a hook module starts, and forgets
open({str(pid_file)!r}, "w").write(f"{{child.pid}} {{os.getpgid(0)}}")
""" + GUARD, "forks.py")  # fmt: skip
    done = hookd(box, "whatif", str(forks), str(logged))
    assert done.returncode == 3, done.stderr
    grandchild, group = map(int, pid_file.read_text().split())
    assert group != os.getpgid(0)  # the candidate had a group of its own
    assert not alive(grandchild)
    assert group_members(group) == []
