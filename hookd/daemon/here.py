"""The project the user is in, and which hooks modules belong to it.

``hookd install`` finds the project above the module (the nearest folder holding
``.claude/`` or ``.git``, :func:`hookd.daemon.project.project_root`); the commands
run without HOOKS (``hookd log``, ``hookd down``, ``hookd doctor``) find it the same
way from the current directory, and take the modules that belong to it: a module
inside it, or one whose install record names a hook file inside it (a module kept
elsewhere, installed into this project's ``.claude/``).

Standard library only: ``hookd down`` imports it.
"""

from __future__ import annotations

from pathlib import Path

from hookd.daemon.paths import daemon_paths, known_daemons, read_json
from hookd.daemon.project import project_root

__all__ = ["belongs", "current_project", "inside", "installed_files", "running_modules"]


def current_project(cwd: Path | None = None) -> Path:
    """The project of ``cwd`` (the current directory), found as ``hookd install`` finds it."""
    here = (Path.cwd() if cwd is None else cwd).resolve()
    return project_root(here / "-", here)


def inside(path: Path, root: Path) -> bool:
    """Whether ``path`` is ``root`` or lies under it."""
    return path == root or root in path.parents


def installed_files(module: Path) -> dict[str, dict[str, object]]:
    """The hook files the module's install record names: path -> what install noted there."""
    record = read_json(daemon_paths(module, create=False).record) or {}
    files = record.get("settings")
    if not isinstance(files, dict):
        return {}
    return {str(k): v for k, v in files.items() if isinstance(v, dict)}


def belongs(module: Path, root: Path) -> bool:
    """Whether ``module`` is one of ``root``'s: inside it, or installed into a file inside it."""
    if inside(module, root):
        return True
    return any(inside(Path(name), root) for name in installed_files(module))


def running_modules() -> list[Path]:
    """The module of each daemon that reported itself running (its ready file; maybe stale)."""
    modules = [(read_json(ready) or {}).get("module") for ready in known_daemons()]
    return [Path(m) for m in modules if isinstance(m, str)]
