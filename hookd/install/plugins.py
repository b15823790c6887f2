"""``hookd install --agent opencode|kilo|pi``: a file hookd generates, not entries in a JSON file.

OpenCode, Kilo CLI and pi run no command hooks: each loads the TypeScript files of a folder
(``.opencode/plugins/``, ``.kilo/plugins/``, ``.pi/extensions/``, or the user's own) with no
prompt. hookd's plugin (``hookd/agents/plugins/hookd-opencode.ts``, ``hookd-pi.ts``) is written
there as ``hookd-KEY.ts``, one per module, with its one settings line filled
(:mod:`hookd.agents.plugin_settings`): the port, the ready and token *files*, hookd and the
module (to start the daemon), the key, ``failOpen``, and each event the module has hooks for
with its deadline and whether no answer blocks it. No token is in it, nor on a command line.

The key in the settings line is the mark: a file of that name without it is the user's, and
install refuses it in one line, before anything is written; uninstall removes the file only
while it holds the mark (a file the user has put there since is left), and the folders install
made for it when they are empty. The file is written atomically, never through a link hookd
may not follow (:mod:`hookd.userfile`), 0644 (it holds paths, no secret).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from pathlib import Path

from hookd.agents import BLOCKING, dialect, opencode, pi
from hookd.agents.plugin_settings import read_settings
from hookd.daemon.entry_text import InstallError
from hookd.daemon.paths import DaemonPaths
from hookd.daemon.settings import EventHooks
from hookd.nofollow import LinkError, make_folders
from hookd.userfile import ReadOnlyError, Seen, remove_if_unchanged, update, writable

__all__ = [
    "PLUGIN_MODE",
    "check_plugin",
    "plugin_routes",
    "plugin_settings",
    "plugin_text",
    "remove_plugin",
    "write_plugin",
]

#: A new plugin file's mode: the agent reads it; it names paths, never a secret.
PLUGIN_MODE = 0o644

Routes = dict[str, tuple[float, bool]]


def plugin_routes(agent: str, events: Iterable[EventHooks], *, fail_open: bool) -> Routes:
    """Each agent event to forward: its deadline (the event's budget) and whether no answer
    blocks it (the shim's ``closed``); events the agent never sends are left out."""
    names = dialect(agent)
    out: Routes = {}
    for e in events:
        theirs = names.agent_event(e.event)
        if theirs is not None:
            out[theirs] = (e.budget_s, e.blocks and e.event in BLOCKING and not fail_open)
    return out


def plugin_text(
    agent: str, paths: DaemonPaths, port: int, hookd: str, routes: Routes, *, fail_open: bool
) -> str:
    """The plugin's source for ``agent`` with its settings line naming the module's daemon."""
    render = pi.extension_source if agent == "pi" else partial(opencode.plugin_source, agent)
    return render(
        port=port, token_file=str(paths.token), ready_file=str(paths.ready), hookd=hookd,
        module=str(paths.module), routes=routes, fail_open=fail_open, key=paths.key,
    )  # fmt: skip


def plugin_settings(data: bytes | None) -> dict[str, object] | None:
    """The settings of a file's text when it is one of hookd's plugins, else None."""
    if data is None:
        return None
    return read_settings(data.decode("utf-8", "replace"))


def _ours(data: bytes | None, key: str) -> bool:
    found = plugin_settings(data)
    return found is not None and found.get("key") == key


def _not_ours(path: Path) -> InstallError:
    return InstallError(
        f"{path}: a file of that name is there, and hookd did not write it; move it away, "
        "then install again"
    )


def _read(path: Path, within: Path | None) -> tuple[Path, bytes | None]:
    """The file to write (a link the user made: its target) and what it holds now."""
    try:
        real = writable(path, within=within)
    except (LinkError, ReadOnlyError) as exc:
        raise InstallError(str(exc)) from None
    try:
        return real, real.read_bytes()
    except FileNotFoundError:
        return real, None
    except OSError as exc:
        raise InstallError(f"{path}: {exc.strerror or exc}") from None


def check_plugin(path: Path, key: str, within: Path | None) -> None:
    """Refuse (one line) a file of the plugin's name that is not the module's plugin."""
    _, data = _read(path, within)
    if data is not None and not _ours(data, key):
        raise _not_ours(path)


def write_plugin(path: Path, text: str, key: str, within: Path | None) -> bool:
    """Write the plugin (atomically; the user's file of that name is refused): True when the
    file was not there before."""
    created = [False]
    new = text.encode()

    def edit(seen: Seen) -> tuple[bytes, int] | None:
        if seen.data is not None and not _ours(seen.data, key):
            raise _not_ours(path)
        created[0] = seen.data is None
        mode = seen.mode if seen.mode is not None else PLUGIN_MODE
        return None if (seen.data, seen.mode) == (new, mode) else (new, mode)

    try:
        make_folders(path.parent, within=within)
        update(path, edit, within=within)
    except (LinkError, ReadOnlyError) as exc:
        raise InstallError(str(exc)) from None
    return created[0]


def remove_plugin(path: Path, key: str, within: Path | None) -> int:
    """Remove the module's plugin: 1 when it went, 0 when there is none (or the file there is
    no longer hookd's: it is left as it is)."""
    real, data = _read(path, within)
    if data is None or not _ours(data, key):
        return 0
    return 1 if remove_if_unchanged(real, data) else 0
