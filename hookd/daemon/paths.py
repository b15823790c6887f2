"""Where a hooks module's daemon keeps its files, and how they are written.

One daemon per hooks module, keyed by the module's resolved path. Lasting
files (the token, the log, the install record) live in the user's state
directory; the ready file (pid and port of the running daemon) and the start
lock in the user's runtime directory. Directories are 0700, files 0600.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from pathlib import Path

from hookd.daemon.where import (
    APP,
    key_file,
    module_key,
    ready_file,
    state_dir,
    token_file,
    xdg_dirs,
)
from hookd.decision import STORE_NAME
from hookd.errors import HookdError

__all__ = [
    "DaemonPaths",
    "PathError",
    "daemon_paths",
    "drop_empty_folders",
    "forget",
    "int_field",
    "known_daemons",
    "known_records",
    "known_stores",
    "module_path",
    "port_field",
    "read_json",
    "read_key",
    "read_secret",
    "read_token",
    "rotate_token",
    "write_private",
]

TOKEN_BYTES = 32
#: The ports a daemon may listen on.
PORTS = range(1, 65536)


class PathError(HookdError):
    """A hooks module that cannot have a daemon, or a state file that cannot be written."""


class DaemonPaths:
    """The files of one hooks module's daemon (a plain class: no ``dataclasses`` to import)."""

    __slots__ = ("key", "module", "run_dir", "state_dir")

    def __init__(self, module: Path, key: str, state_dir: Path, run_dir: Path) -> None:
        self.module = module
        self.key = key
        self.state_dir = state_dir
        self.run_dir = run_dir

    @property
    def token(self) -> Path:
        return Path(token_file(str(self.state_dir)))

    @property
    def proof_key(self) -> Path:
        """The proof key (:func:`hookd.daemon.where.proof`): read by the daemon, never sent."""
        return Path(key_file(str(self.state_dir)))

    @property
    def log(self) -> Path:
        return self.state_dir / "daemon.log"

    @property
    def decisions(self) -> Path:
        """The decision log (``hookd log``): one record per answer, kept by the daemon."""
        return self.state_dir / STORE_NAME

    @property
    def record(self) -> Path:
        """What ``hookd install`` wrote, so ``uninstall`` can take exactly that back."""
        return self.state_dir / "install.json"

    @property
    def ready(self) -> Path:
        """Written by the daemon once it listens: pid, host, port, module, started."""
        return Path(ready_file(str(self.run_dir), self.key))

    @property
    def lock(self) -> Path:
        return self.run_dir / f"{self.key}.lock"


def module_path(spec: str) -> Path:
    """The resolved path of a hooks file; a clear error for anything else."""
    path = Path(spec).expanduser()
    if not path.is_file():
        if path.suffix == ".py" or os.sep in spec:
            raise PathError(f"{spec}: no such file")
        raise PathError(f"{spec}: the daemon serves a hooks file (path/to/hooks.py)")
    return path.resolve()


def _base_dirs() -> tuple[Path, Path]:
    found = xdg_dirs()
    if found is None:
        _check_runtime_env()
        found = _platform_dirs()
    state, run = Path(found[0]), Path(found[1])
    try:
        run.mkdir(mode=0o700, exist_ok=True)  # the runtime directory itself must exist already
    except OSError:  # none on this system (no XDG_RUNTIME_DIR): keep it with the state
        run = state / "run"
    return state, run


def _check_runtime_env() -> None:
    """A ``$XDG_RUNTIME_DIR`` that exists but that others may write is refused, not avoided."""
    value = os.environ.get("XDG_RUNTIME_DIR", "")
    if not os.path.isabs(value):
        return
    try:
        info = os.stat(value)
    except FileNotFoundError:
        return  # none: the runtime files are kept with the state
    except OSError as exc:
        raise PathError(f"$XDG_RUNTIME_DIR ({value}): {exc.strerror}") from None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o077:
        raise PathError(
            f"$XDG_RUNTIME_DIR ({value}) is not a private directory of this user "
            f"(mode {stat.S_IMODE(info.st_mode):o}, owner uid {info.st_uid}); "
            f"fix it with `chmod 700 {value}`, or unset XDG_RUNTIME_DIR"
        )


def _platform_dirs() -> tuple[str, str]:
    import warnings

    import platformdirs

    state = platformdirs.user_state_dir(APP, appauthor=False)
    with warnings.catch_warnings():  # its own fallback for an unsafe XDG_RUNTIME_DIR is fine
        warnings.simplefilter("ignore")
        run = platformdirs.user_runtime_dir(APP, appauthor=False)
    return state, run


def daemon_paths(module: Path, *, create: bool = True) -> DaemonPaths:
    """The files of ``module``'s daemon; their directories exist (0700) on return if ``create``."""
    state, run = _base_dirs()
    key = module_key(str(module))
    paths = DaemonPaths(module, key, Path(state_dir(str(state), key)), run)
    if not create:
        return paths
    for directory, top in ((paths.state_dir, state), (paths.run_dir, run)):
        try:
            _private_dir(directory)
            _own_dirs(directory, top)
        except OSError as exc:
            where = exc.filename or directory
            fix = "move it away (hookd makes it again)"
            raise PathError(f"{where}: {exc.strerror}; {fix}") from None
    return paths


def _own_dirs(directory: Path, top: Path) -> None:
    """Each of hookd's own directories, ``top`` down to ``directory``, is ours and 0700."""
    while True:
        info = directory.lstat()
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
            raise PathError(
                f"{directory}: not a directory of this user; move it away (hookd makes it again)"
            )
        if stat.S_IMODE(info.st_mode) != 0o700:
            directory.chmod(0o700)
        if directory in (top, directory.parent):
            return
        directory = directory.parent


def forget(paths: DaemonPaths, *, keep_decisions: bool = False) -> None:
    """Remove the module's lasting files (token, proof key, log, install record) and its start
    lock; with ``keep_decisions``, its decision log stays (the store, its WAL and the damaged
    copies set aside): the history ``hookd log`` and ``hookd whatif`` read."""
    import shutil

    if not keep_decisions:
        shutil.rmtree(paths.state_dir, ignore_errors=True)
    else:
        for entry in _entries(paths.state_dir):
            if entry.name.startswith(STORE_NAME):
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
    paths.lock.unlink(missing_ok=True)


def _entries(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir())
    except OSError:
        return []


def known_daemons() -> list[Path]:
    """Ready files of every daemon that reported itself running (maybe stale)."""
    _, run = _base_dirs()
    return sorted(run.glob("*-*.json")) if run.is_dir() else []


def known_records() -> list[Path]:
    """The install records of every module that has one (``install.json``)."""
    state, _ = _base_dirs()
    base = state / "daemons"
    return sorted(base.glob("*/install.json")) if base.is_dir() else []


def known_stores() -> list[Path]:
    """The decision logs of every module that has one."""
    state, _ = _base_dirs()
    base = state / "daemons"
    return sorted(base.glob(f"*/{STORE_NAME}")) if base.is_dir() else []


def _private_dir(path: Path) -> None:
    """``path`` and every parent hookd creates for it, each 0700 (``mkdir -p`` leaves 0755)."""
    missing: list[Path] = []
    while not path.is_dir():
        missing.append(path)
        path = path.parent
    for part in reversed(missing):
        part.mkdir(mode=0o700, exist_ok=True)
        part.chmod(0o700)  # the umask may have narrowed it


def write_private(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Replace ``path`` atomically with ``data`` (a temporary file, fsync, rename)."""
    tmp = path.with_name(f".{path.name}.{os.urandom(4).hex()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)  # the umask may have narrowed it
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def read_token(paths: DaemonPaths, *, create: bool = False) -> str | None:
    """The module's token; a new random one is made (0600) when asked and there is none."""
    return read_secret(paths.token, create=create)


def read_key(paths: DaemonPaths) -> str:
    """The module's proof key, made (0600) on first use."""
    key = read_secret(paths.proof_key, create=True)
    assert key is not None
    return key


def read_secret(path: Path, *, create: bool = False) -> str | None:
    """A secret file's text; a new random one when asked and there is none.

    Made by linking a complete file into place, so that of several processes
    making it at once one wins and every one reads the winner's.
    """
    for _ in range(3):
        try:
            text = path.read_bytes().decode("utf-8").strip()
        except FileNotFoundError:
            text = ""
        except UnicodeDecodeError:
            raise PathError(f"{path}: not UTF-8 text; delete it and a new one is made") from None
        except OSError as exc:
            raise PathError(f"{path}: {exc.strerror}; delete it and a new one is made") from None
        if text or not create:
            return text or None
        if _create_secret(path):
            return read_secret(path)
    raise PathError(f"{path}: empty; delete it and a new one is made")


def _create_secret(path: Path) -> bool:
    """Link a new random secret into place at ``path``; False when another was there first."""
    import secrets

    tmp = path.with_name(f".{path.name}.{os.urandom(4).hex()}.tmp")
    write_private(tmp, secrets.token_hex(TOKEN_BYTES).encode() + b"\n")
    try:
        os.link(tmp, path)
    except FileExistsError:
        if path.stat().st_size == 0:  # an empty file left by hand: replace it
            os.replace(tmp, path)
            return True
        return False
    finally:
        tmp.unlink(missing_ok=True)
    return True


def rotate_token(paths: DaemonPaths) -> str:
    """Replace the module's token with a new random one; the new token."""
    import secrets

    token = secrets.token_hex(TOKEN_BYTES)
    write_private(paths.token, token.encode() + b"\n")
    return token


def read_json(path: Path) -> dict[str, object] | None:
    """A JSON object from ``path``; None when it is missing or unreadable."""
    try:
        value = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def int_field(value: dict[str, object] | None, name: str) -> int | None:
    """``value[name]`` when it is an int."""
    got = value.get(name) if value is not None else None
    return got if isinstance(got, int) and not isinstance(got, bool) else None


def port_field(value: dict[str, object] | None, name: str = "port") -> int | None:
    """``value[name]`` when it is a port a daemon can listen on (1-65535)."""
    got = int_field(value, name)
    return got if got in PORTS else None


def drop_empty_folders(paths: DaemonPaths) -> None:
    """Remove hookd's own folders left empty once a module is forgotten: its state directory,
    ``daemons/`` and ``hookd/`` above it, and the runtime directory (never one that holds
    anything: another module's files, a decision log kept)."""
    for folder in (paths.state_dir, paths.state_dir.parent, paths.state_dir.parent.parent):
        if folder.name not in (paths.state_dir.name, "daemons", "hookd"):
            break
        try:
            folder.rmdir()
        except FileNotFoundError:
            continue
        except OSError:
            break  # not empty: another module's, or a decision log kept
    with contextlib.suppress(OSError):
        paths.run_dir.rmdir()
