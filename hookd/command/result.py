"""How a command hook's process ended: the result type, apart from the code that runs it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = ["MAX_OUTPUT_BYTES", "Finished"]

#: Bytes kept of each of stdout and stderr.
MAX_OUTPUT_BYTES: Final = 1024 * 1024


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
