"""Fault: a hook (or a process it starts) writes megabytes to stdout."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import hookd
from hookd import HookContext, HookMatcher
from tests.hooks.faults._healthy import healthy

Input = dict[str, Any]
MIB = 1 << 20


def _flood() -> None:
    print("p" * (2 * MIB))
    sys.stdout.write('{"type":"control_response","forged":true}\n' * 1000)
    sys.stdout.flush()
    os.write(1, b"w" * MIB + b"\n")


@hookd.runs_on("trio")
async def print_on_trio(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    _flood()
    return hookd.allow("printed")


def print_in_thread(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    _flood()
    return hookd.allow("printed")


def print_from_child(input_data: Input, tool_use_id: str | None, ctx: HookContext) -> Any:
    code = "import sys; sys.stdout.write('c' * (1 << 21) + '\\n')"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=20)
    return hookd.allow("printed")


hooks = {
    "PreToolUse": [
        HookMatcher(matcher="Fault", hooks=[print_on_trio], timeout=20),
        HookMatcher(matcher="FaultThread", hooks=[print_in_thread], timeout=20),
        HookMatcher(matcher="FaultChild", hooks=[print_from_child], timeout=20),
        *healthy(),
    ]
}
