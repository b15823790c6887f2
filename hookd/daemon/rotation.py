"""A new token in the settings files ``hookd install`` wrote, when the daemon starts with it.

Every start of a daemon gives it a new token (:func:`hookd.daemon.lifecycle.ensure_up`):
while no daemon held the port, any program could have, and received the token
with each request the CLI sent. In local and user scope the settings carry the
token literally, so the module's own http handlers there get the new one; the
CLI watches its settings files and uses them from its next hook on. Project
scope writes no token into its file (its ``hookd call`` shims read the token
file themselves), and a handler that sends ``$HOOKD_TOKEN`` is left alone: that
token is the user's to change. Nothing else in the files is touched: the token is
edited in the file's text (:mod:`hookd.daemon.entry_text`), and the file replaced only
while it still holds what was read (:mod:`hookd.userfile`), so a rule the CLI saves
meanwhile is kept. Once the daemon answers, the files are checked again
(:func:`hookd.daemon.lifecycle.ensure_up`): a program that wrote back what it had read
before the new token was there is corrected.
"""

from __future__ import annotations

import sys
from pathlib import Path

from hookd.daemon.paths import DaemonPaths, read_json

__all__ = ["rewrite_settings"]


def rewrite_settings(paths: DaemonPaths, token: str, *, quiet: bool = False) -> bool:
    """Put ``token`` in the module's literal-token handlers of each installed settings file;
    whether any file had to be written, or could not be (then it is said in one line, unless
    ``quiet``)."""
    files = (read_json(paths.record) or {}).get("settings")
    wrote = False
    for name, mine in files.items() if isinstance(files, dict) else ():
        if isinstance(mine, dict) and mine.get("agent"):
            continue  # an agent's hook file holds the token file's path, never the token
        path = Path(name)
        try:
            wrote |= _rewrite(path, paths.key, token, _within(path, mine))
        except (OSError, ValueError) as exc:
            wrote = True  # not known to hold the token
            if not quiet:
                print(f"hookd: warning: {path}: cannot write the new token: {exc}", file=sys.stderr)
    return wrote


def _within(path: Path, mine: object) -> Path | None:
    """Where the install said no link may lead out of (a record from before it said so: the
    folder above the settings folder, the project for ``.claude/settings.local.json``)."""
    if isinstance(mine, dict) and "within" in mine:
        within = mine["within"]
        return Path(within) if isinstance(within, str) else None
    return path.parent.parent


def _rewrite(path: Path, key: str, token: str, within: Path | None) -> bool:
    """Edit the token in the file's text, and nothing else (:mod:`hookd.userfile`: a link of
    the user's is written through, a change another program makes meanwhile is kept)."""
    from hookd.daemon.entry_text import CLAUDE, parse, set_token
    from hookd.userfile import Seen, update

    def edit(seen: Seen) -> tuple[bytes, int] | None:
        if seen.data is None:
            return None
        if not seen.data.strip():  # another program's write in progress: never the user's file
            raise ValueError(f"{path}: empty")
        doc = parse(seen.data, path, CLAUDE)
        if not set_token(doc, key, token):
            return None
        return doc.encode(), seen.mode if seen.mode is not None else 0o600

    return update(path, edit, within=within)
