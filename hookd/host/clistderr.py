"""The CLI's own stderr in ``hookd run``: kept out of the progress view, in a file.

With the progress view on, a failing hook makes the CLI print kilobytes of its
own source to stderr. Those bytes go to a log file instead, and the view ends
with one short line naming the file.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Final

import trio

from hookd.nofollow import open_for_writing

__all__ = ["CliStderr", "stderr_log_path"]

READ_BYTES: Final = 64 * 1024
SHOWN_CHARS: Final = 80
_TEMPORARY: Final = "hookd-cli-stderr-"


def stderr_log_path(choice: str) -> Path | None:
    """Where the CLI's stderr goes: None for hookd's own stderr, else a file."""
    if choice == "-":
        return None
    if choice == "auto":
        handle, name = tempfile.mkstemp(prefix=_TEMPORARY, suffix=".log")
        os.close(handle)
        return Path(name)
    return Path(choice)


class CliStderr:
    """The CLI's stderr, appended to ``path``; summed up in one line at the end of the run."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.size = 0
        self.first = ""
        self.done = trio.Event()

    async def keep(self, stream: trio.abc.ReceiveStream) -> None:
        """Copy ``stream`` to the file until EOF."""
        try:
            with os.fdopen(open_for_writing(self.path, 0o666, append=True), "ab") as log_file:
                while data := await stream.receive_some(READ_BYTES):
                    log_file.write(data)
                    log_file.flush()
                    if not self.first:
                        self.first = " ".join(bytes(data).decode("utf-8", "replace").split())
                    self.size += len(data)
        finally:
            self.done.set()
            ours = self.path.parent == Path(tempfile.gettempdir())
            if not self.size and ours and self.path.name.startswith(_TEMPORARY):
                with contextlib.suppress(OSError):  # an empty log of hookd's own: nothing kept
                    if not self.path.stat().st_size:
                        self.path.unlink()

    def summary(self) -> str | None:
        """One line for the view, or None when the CLI wrote nothing."""
        if not self.size:
            return None
        shown = self.first[:SHOWN_CHARS] + ("..." if len(self.first) > SHOWN_CHARS else "")
        return f"  ! the CLI wrote {self.size} bytes to stderr (kept in {self.path}): {shown}"
