"""The project a hooks module belongs to, and keeping hookd's secrets out of its git.

``hookd install`` writes into the project's ``.claude/`` wherever it is run
from: the project is the nearest directory above the module (then above the
current directory) that holds ``.claude/`` (the home directory's own does not
count: it holds the user settings) or is a git work tree's top.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable
from pathlib import Path

__all__ = [
    "exclude_file", "forget_exclude", "git_ignore", "git_note", "git_tracks", "project_root",
]  # fmt: skip

GIT_TIMEOUT_S = 10.0


def project_root(module: Path, cwd: Path) -> Path:
    """The project directory of ``module`` (see the module's docstring); ``cwd`` when none."""
    home = Path.home()
    for start in (module.parent, cwd):
        for folder in (start, *start.parents):
            if (folder / ".git").exists() or (folder != home and (folder / ".claude").is_dir()):
                return folder
    return cwd


def _git(folder: Path, *words: str) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(
            ["git", *words],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None  # no git here: nothing it could commit


def git_tracks(file: Path) -> bool:
    """Whether ``file`` is in a git work tree, tracked."""
    folder = next((f for f in file.parents if f.is_dir()), None)
    if folder is None:
        return False
    done = _git(folder, "ls-files", "--error-unmatch", "--", str(file))
    return done is not None and done.returncode == 0


def git_note(files: Iterable[Path], why: str = "these hold the daemon's token") -> str | None:
    """Make git ignore ``files`` (see :func:`git_ignore`); what the user should know, or None."""
    return git_ignore(files, why)[0]


def git_ignore(
    files: Iterable[Path], why: str = "these hold the daemon's token"
) -> tuple[str | None, Path | None, list[str]]:
    """Make git ignore ``files`` (which may hold a token): what the user should know (or
    None), and the exclude file with the lines added to it (for uninstall to take back).

    Files not yet ignored are added to the work tree's ``info/exclude`` (local to the
    clone, never committed), under a comment saying ``why``. A file git already tracks
    cannot be ignored: that is said. The exclude file is never written through a link
    (:mod:`hookd.nofollow`): one that is a link is named in the note, and left alone.
    """
    from hookd.nofollow import LinkError

    files = list(files)
    folder = files[0].parent
    folder.mkdir(parents=True, exist_ok=True)
    top = _git(folder, "rev-parse", "--show-toplevel")
    if top is None or top.returncode != 0:
        return None, None, []
    tracked = _git(folder, "ls-files", "--", *(f.name for f in files))
    if tracked is not None and tracked.stdout.strip():
        name = tracked.stdout.split()[0]
        return (
            f"warning: git tracks {name}, which now holds the daemon's token; untrack it",
            None,
            [],
        )
    added = [f for f in files if _ignored(folder, f) is False]
    if not added:
        return None, None, []
    exclude = exclude_file(folder)
    if exclude is None:
        return f"warning: could not make git ignore {files[0].name}", None, []
    root = Path(top.stdout.strip())
    lines = [f"# hookd install: {why}", *(f"/{os.path.relpath(f, root)}" for f in added)]
    try:
        _append(exclude, lines)
    except LinkError as exc:
        return f"warning: could not make git ignore {files[0].name}: {exc}", None, []
    shown = ", ".join(lines[1:])
    return f"git now ignores {shown} (listed in {exclude})", exclude, lines


def forget_exclude(mine: dict[str, object]) -> None:
    """Take out of the exclude file exactly the lines install added (``mine["exclude"]``:
    the file and its lines), each once, the last of its kind; the rest stays as it was."""
    from hookd.nofollow import LinkError, check_target
    from hookd.userfile import Seen, update

    noted = mine.get("exclude")
    if not isinstance(noted, dict) or not isinstance(noted.get("file"), str):
        return
    path, lines = Path(noted["file"]), [x for x in noted.get("lines") or () if isinstance(x, str)]

    def edit(seen: Seen) -> tuple[bytes, int] | None:
        if seen.data is None:
            return None
        kept = seen.data.decode("utf-8", "replace").splitlines(keepends=True)
        for line in reversed(lines):
            at = [i for i, x in enumerate(kept) if x.rstrip("\r\n") == line]
            if at:
                del kept[at[-1]]
        data = "".join(kept).encode()
        return None if data == seen.data else (data, seen.mode or 0o644)

    try:
        check_target(path)
        update(path, edit)
    except (LinkError, OSError):
        return  # the user's to tidy: never written through a link


def exclude_file(folder: Path, within: Path | None = None) -> Path | None:
    """The ``info/exclude`` of the git work tree holding ``folder`` (or its nearest existing
    folder, not above ``within``), its links not resolved (they are the caller's to refuse);
    None outside a work tree."""
    while not folder.is_dir() and folder not in (folder.parent, within):
        folder = folder.parent
    if not folder.is_dir():
        return None
    where = _git(folder, "rev-parse", "--git-path", "info/exclude")
    if where is None or where.returncode != 0 or not where.stdout.strip():
        return None
    return Path(os.path.normpath(folder / where.stdout.strip()))


def _ignored(folder: Path, file: Path) -> bool | None:
    done = _git(folder, "check-ignore", "-q", file.name)
    return None if done is None or done.returncode > 1 else done.returncode == 0


def _append(path: Path, lines: list[str]) -> None:
    """Add ``lines`` to ``path``: the whole file written anew and renamed over the old one,
    never through a link."""
    from hookd.nofollow import check_target
    from hookd.userfile import Seen, update

    check_target(path)
    path.parent.mkdir(parents=True, exist_ok=True)

    def edit(seen: Seen) -> tuple[bytes, int]:
        before = (seen.data or b"").decode("utf-8", "replace")
        if before and not before.endswith("\n"):
            before += "\n"
        return (before + "\n".join(lines) + "\n").encode(), seen.mode or 0o644

    update(path, edit)
