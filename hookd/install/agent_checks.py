"""What ``hookd install --agent`` checks and says for Droid and Cline beyond writing the hooks.

Droid merges the hooks of ``.factory/hooks.json`` and of ``hooks`` in ``.factory/settings.json``
(the same folder) per event, **hooks.json's list replacing settings.json's**: hookd's entry for
an event that only settings.json lists would silently turn the user's own hooks for it off. So
install refuses that in one line (move them into hooks.json first). ``droid exec`` sends no
UserPromptSubmit (only its interactive sessions do): said in one line.

Cline waits only for the PreToolUse and PostToolUse hooks; the others run detached, their
answers never read: said in one line, with the user's other hook files of the same events
(Cline runs them too, in the order of their paths; an ``overrideInput`` of one that runs after
hookd's replaces hookd's deny).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from hookd.daemon.entry_text import InstallError
from hookd.install.executables import other_hooks
from hookd.install.installed import read_object, shown_path

__all__ = ["before_write", "notes_for"]

#: Cline's events whose hooks it waits for and reads.
_CLINE_READ = ("PreToolUse", "PostToolUse")


def before_write(agent: str, path: Path, events: Iterable[str]) -> None:
    """Refuse (one line) an install that would turn some of the user's own hooks off."""
    if agent != "droid":
        return
    settings = path.with_name("settings.json")
    try:
        value = read_object(settings) or {}
    except ValueError:
        return  # Droid cannot read it either
    theirs = value.get("hooks")
    if not isinstance(theirs, dict):
        return
    try:
        ours = read_object(path) or {}
    except ValueError:
        return  # refused as it is written
    shadowed = [e for e in events if theirs.get(e) and not ours.get(e)]
    if shadowed:
        raise InstallError(
            f"{settings} has hooks for {', '.join(shadowed)}, which droid no longer runs once "
            f"{path.name} beside it lists {'that event' if len(shadowed) == 1 else 'them'}; "
            f"move them into {path} (its root is the event map), then install again"
        )


def _cline_folders(project: Path) -> list[Path]:
    """Every hooks folder Cline 3.0.65 reads for a project."""
    given = os.environ.get("CLINE_DIR")
    home = Path(given) if given else Path.home() / ".cline"
    return [project / ".clinerules" / "hooks", project / ".cline" / "hooks", home / "hooks",
            Path.home() / "Documents" / "Cline" / "Hooks"]  # fmt: skip


def notes_for(agent: str, project: Path, events: list[str], written: Iterable[Path]) -> list[str]:
    """One line each: what the agent does not do with hookd's hooks, and the user's own hooks
    that may change hookd's answer."""
    if agent == "droid" and "UserPromptSubmit" in events:
        return ["hookd: droid exec sends no UserPromptSubmit (droid's interactive sessions do)"]
    if agent != "cline":
        return []
    out = []
    detached = [e for e in events if e not in _CLINE_READ]
    if detached:
        out.append(
            f"hookd: cline runs {', '.join(detached)} detached and reads no answer to "
            f"{'it' if len(detached) == 1 else 'them'}: only PreToolUse and PostToolUse can "
            "deny, rewrite or add context"
        )
    others = other_hooks(_cline_folders(project), written, events)
    if others:
        shown = ", ".join(shown_path(p, project) for p in others)
        out.append(
            f"hookd: cline also runs {shown}, one after the other in the order of their paths: "
            "an overrideInput from one that runs after hookd's replaces hookd's deny"
        )
    return out
