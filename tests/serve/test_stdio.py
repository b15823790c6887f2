"""The process's stdio given to the protocol: hooks that print reach stderr only."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import os, sys
from hookd.serve.stdio import protocol_stdio, write_all
with protocol_stdio() as (fd_in, fd_out):
    print("from a hook")                       # fd 1 is stderr now
    os.system("echo from a child")             # so is a child's
    assert sys.stdin.read() == ""              # fd 0 is /dev/null
    write_all(fd_out, os.read(fd_in, 100).upper())
"""


def test_only_the_protocol_reaches_stdout() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        input=b"ping\n",
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == b"PING\n"
    assert b"from a hook" in proc.stderr and b"from a child" in proc.stderr
