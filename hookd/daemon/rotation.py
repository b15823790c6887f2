"""A new token in the settings files ``hookd install`` wrote, when the daemon starts with it.

Every start of a daemon gives it a new token (:func:`hookd.daemon.lifecycle.ensure_up`):
while no daemon held the port, any program could have, and received the token
with each request the CLI sent. In local and user scope the settings carry the
token literally, so the module's own http handlers there get the new one; the
CLI watches its settings files and uses them from its next hook on. Project
scope writes no token into its file (its ``hookd call`` shims read the token
file themselves), and a handler that sends ``$HOOKD_TOKEN`` is left alone: that
token is the user's to change. Nothing else in the files is touched.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from hookd.daemon.paths import DaemonPaths, read_json
from hookd.daemon.settings import is_ours
from hookd.nofollow import LinkError, replace_file

__all__ = ["rewrite_settings"]


def rewrite_settings(paths: DaemonPaths, token: str) -> None:
    """Put ``token`` in the module's literal-token handlers of each installed settings file."""
    files = (read_json(paths.record) or {}).get("settings")
    for name in files if isinstance(files, dict) else ():
        path = Path(name)
        try:
            _rewrite(path, paths.key, token)
        except (OSError, ValueError, LinkError) as exc:
            print(f"hookd: warning: {path}: cannot write the new token: {exc}", file=sys.stderr)


def _rewrite(path: Path, key: str, token: str) -> None:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return
    value = json.loads(raw)
    if not isinstance(value, dict) or not _replace(value, key, token):
        return
    mode = path.stat().st_mode & 0o777
    replace_file(path, (json.dumps(value, indent=2) + "\n").encode(), mode)  # never via a link


def _replace(settings: dict[str, Any], key: str, token: str) -> bool:
    changed = False
    hooks = settings.get("hooks")
    for groups in hooks.values() if isinstance(hooks, dict) else ():
        for group in groups if isinstance(groups, list) else ():
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for handler in handlers if isinstance(handlers, list) else ():
                changed |= _new_header(handler, key, token)
    return changed


def _new_header(handler: Any, key: str, token: str) -> bool:
    if not is_ours(handler, key) or handler.get("type") != "http":
        return False
    headers = handler.get("headers")
    current = headers.get("Authorization") if isinstance(headers, dict) else None
    if not isinstance(current, str) or "$" in current or current == f"Bearer {token}":
        return False
    headers["Authorization"] = f"Bearer {token}"
    return True
