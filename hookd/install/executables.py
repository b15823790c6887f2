"""``hookd install --agent cline``: one small script per event in Cline's hooks folder.

Cline (3.0.65) runs every file of its hooks folders whose name, one extension dropped (none,
``.sh``, ``.py``, ``.zsh``, ...), is an event's (``PreToolUse``, ``TaskStart``, ...), in any
case, one after the other in the order of their full paths, each given the payload on
stdin; a file's first line ``#!/bin/bash`` has it run by ``bash`` (a link is no hook). Their
answers are merged: a ``cancel`` from any, the ``overrideInput`` of the last one that gives
it. hookd's script is named ``EVENT.zsh``: ``.zsh`` sorts after every other extension Cline
takes, so in its folder hookd's answer comes after the user's hooks of the same event (an
``overrideInput`` of theirs run later would replace hookd's deny), and its ``#!/bin/bash``
line still has bash run it. It holds one command, the shim's (``exec bash hookd-agent.sh
... #hookd=KEY``), which is its mark.

A file of that name that is not the module's script (the user's, a link, another module's
script) is refused in one line before anything is written, and left as it is; the user's
other hook files are never touched. Uninstall removes only the files that still carry the
module's mark (and the folders install made, when left empty). No file of the user's is
moved or replaced, so nothing needs restoring.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from hookd.agents import dialect
from hookd.daemon.entry_text import InstallError
from hookd.daemon.paths import DaemonPaths
from hookd.daemon.settings import EventHooks
from hookd.install.agent_files import AGENT_CONFIGS, AgentTarget
from hookd.nofollow import (
    LinkError,
    check_folders,
    create_file,
    make_folders,
    read_regular,
    replace_file,
)

__all__ = [
    "EXTENSION",
    "SCRIPT_MODE",
    "check_scripts",
    "commands",
    "install_scripts",
    "other_hooks",
    "remove_scripts",
    "script_paths",
    "scripts",
    "write_scripts",
]

#: The extension of hookd's scripts: the one Cline sorts last (see the module).
EXTENSION = ".zsh"
#: A new script's mode: executable (Cline runs it with bash either way); no secret in it.
SCRIPT_MODE = 0o755
#: The extensions Cline takes for a hook file (and none).
_CLINE_EXTENSIONS = ("", ".sh", ".bash", ".zsh", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts",
                     ".py", ".ps1")  # fmt: skip
_MARKED = re.compile(r"^exec (bash .* #hookd=(\S+))[ \t]*$", re.M)


def _names(agent: str) -> list[str]:
    """Every event file name the agent knows (hookd's scripts can only be among them)."""
    return [f"{theirs}{EXTENSION}" for theirs in dialect(agent).events]


def script_paths(agent: str, folder: Path) -> list[Path]:
    """Every script hookd may write in ``folder`` for ``agent`` (none for another kind)."""
    config = AGENT_CONFIGS.get(agent)
    if config is None or config.kind != "executables":
        return []
    return [folder / name for name in _names(agent)]


def _text(target: AgentTarget, agent_event: str, e: EventHooks) -> str:
    agent = target.config.agent
    return (
        "#!/bin/bash\n"
        f"# hookd: {agent}'s {agent_event} hook for {target.module},\n"
        f"# written by `hookd install --agent {agent}`; `hookd uninstall --agent {agent}` "
        "removes it.\n"
        f"# Named {EXTENSION} so that {agent} runs it after your own {agent_event} hooks in this "
        "folder;\n"
        "# bash runs it (the first line).\n"
        f"exec {target.command(agent_event, e)}\n"
    )


def scripts(target: AgentTarget, events: Iterable[EventHooks]) -> dict[str, str]:
    """Each script to write, by the agent's event: one per agent event of each of the module's
    events (``SessionStart``: Cline's ``TaskStart`` and ``TaskResume``)."""
    names = dialect(target.config.agent)
    out: dict[str, str] = {}
    for e in events:
        for theirs, ours in names.events.items():
            if ours == e.event:
                out[theirs] = _text(target, theirs, e)
    return out


def _command(data: bytes | None, key: str | None = None) -> str | None:
    """The shim command of one of hookd's scripts (``key``: the module's only), else None."""
    if data is None:
        return None
    found = _MARKED.search(data.decode("utf-8", "replace"))
    if found is None or (key is not None and found.group(2) != key):
        return None
    return found.group(1)


def _read(path: Path) -> bytes | None:
    try:
        return read_regular(path)
    except LinkError:
        raise InstallError(f"{path}: a link or not a file (Cline runs no link); move it away, "
                           "then install again") from None  # fmt: skip
    except OSError as exc:
        raise InstallError(f"{path}: {exc.strerror or exc}") from None


def _refuse(path: Path, data: bytes, key: str) -> InstallError | None:
    if _command(data, key) is not None:
        return None
    if _command(data) is not None:
        return InstallError(
            f"{path}: hookd's script for another module; uninstall that one first (Cline runs "
            "one file of this name)"
        )
    return InstallError(
        f"{path}: your own hook file has the name of hookd's; rename it (Cline runs any "
        f"{path.name.removesuffix(EXTENSION)}.sh, .py, ... beside hookd's), then install again"
    )


def check_scripts(agent: str, folder: Path, key: str, within: Path | None) -> None:
    """Refuse (one line) a folder or a file of a script's name hookd may not write."""
    above = folder
    while not above.is_dir() and above != above.parent:
        if above.exists() or above.is_symlink():
            raise InstallError(f"{above}: not a folder, where {folder} would be; move it away "
                               "(or install with --scope user)")  # fmt: skip
        above = above.parent
    try:
        check_folders(folder, within)
    except LinkError as exc:
        raise InstallError(str(exc)) from None
    for path in script_paths(agent, folder):
        data = _read(path)
        refused = _refuse(path, data, key) if data is not None else None
        if refused is not None:
            raise refused


def install_scripts(
    paths: DaemonPaths,
    agent: str,
    folder: Path,
    port: int,
    texts: dict[str, str],
    *,
    within: Path | None,
) -> list[Path]:
    """Write the module's scripts (``texts`` by agent event) and note them in the install
    record (with the folders made for them); the files written."""
    from hookd.install.claude import remember
    from hookd.install.settings_file import Found, missing_dirs

    made = missing_dirs(folder)
    written = write_scripts(folder, texts, paths.key, within, agent=agent)
    extra = {"agent": agent, "kind": "executables", "made_dirs": [str(d) for d in made]}
    remember(paths, folder, port, Found(False, False, None, None), within=within, extra=extra)
    return written


def write_scripts(
    folder: Path, texts: dict[str, str], key: str, within: Path | None, *, agent: str
) -> list[Path]:
    """Write the scripts (``texts`` by agent event; a script of the module's no longer wanted
    goes); the files written."""
    by_name = {f"{event}{EXTENSION}": text for event, text in texts.items()}
    try:
        make_folders(folder, within=within)
        written = []
        for path in script_paths(agent, folder):
            data, new = _read(path), by_name.get(path.name)
            if data is not None and (refused := _refuse(path, data, key)) is not None:
                raise refused
            if new is None:
                if data is not None:
                    path.unlink()
            elif data is None:
                create_file(path, new.encode(), SCRIPT_MODE, within=within)
            elif data != new.encode():
                replace_file(path, new.encode(), path.stat().st_mode & 0o7777, within=within)
            if new is not None:
                written.append(path)
        return written
    except LinkError as exc:
        raise InstallError(str(exc)) from None


def remove_scripts(agent: str, folder: Path, key: str) -> int:
    """Remove the module's scripts (a file that no longer carries its mark is left)."""
    removed = 0
    for path in script_paths(agent, folder):
        try:
            data = read_regular(path)
        except OSError:
            continue
        if _command(data, key) is not None:
            path.unlink(missing_ok=True)
            removed += 1
    return removed


def commands(agent: str, folder: Path, keys: tuple[str, ...]) -> dict[str, str]:
    """The agent event and shim command of each of the scripts of the module (``keys``)."""
    out: dict[str, str] = {}
    for path in script_paths(agent, folder):
        try:
            data = read_regular(path)
        except OSError:
            continue
        command = next((c for k in keys if (c := _command(data, k)) is not None), None)
        if command is not None:
            out[path.name.removesuffix(EXTENSION)] = command
    return out


def _event_of(name: str, events: set[str]) -> str | None:
    """The event a hook file's name is for (Cline's rule: any case, one known extension)."""
    for ext in _CLINE_EXTENSIONS:
        if ext and not name.lower().endswith(ext):
            continue
        base = name[: len(name) - len(ext)] if ext else name
        found = next((e for e in events if e.lower() == base.lower()), None)
        if found is not None:
            return found
    return None


def other_hooks(folders: Iterable[Path], mine: Iterable[Path], events: Iterable[str]) -> list[Path]:
    """The hook files besides hookd's that Cline runs for ``events`` (its own names)."""
    wanted, skip = set(events), set(mine)
    found = []
    for folder in dict.fromkeys(folders):
        try:
            entries = sorted(folder.iterdir())
        except OSError:
            continue
        for path in entries:
            if path in skip or path.is_symlink() or not path.is_file():
                continue
            if _event_of(path.name, wanted) is not None:
                found.append(path)
    return found
