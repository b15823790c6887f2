"""How a command hook's process ended: the result type, apart from the code that runs it."""

from __future__ import annotations

from dataclasses import dataclass

from hookd.core.limits import MAX_OUTPUT_BYTES

__all__ = ["MAX_OUTPUT_BYTES", "Finished"]


@dataclass(frozen=True, slots=True)
class Finished:
    """How a child process ended: its exit status and what it wrote.

    ``returncode`` is negative when a signal killed the process (``-signal``).
    """

    returncode: int
    stdout: bytes
    stderr: bytes
    stdout_truncated: bool = False
    stderr_truncated: bool = False
