"""Where a hooks module's daemon keeps its files, and how they are written.

One daemon per hooks module, keyed by the module's resolved path. Lasting
files (the token, the log, the install record) live in the user's state
directory; the ready file (pid and port of the running daemon) and the start
lock in the user's runtime directory. Directories are 0700, files 0600.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

__all__ = [
    "DaemonPaths",
    "PathError",
    "daemon_paths",
    "int_field",
    "known_daemons",
    "module_path",
    "read_json",
    "read_token",
    "write_private",
]

APP = "hookd"
TOKEN_BYTES = 32


class PathError(Exception):
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
        return self.state_dir / "token"

    @property
    def log(self) -> Path:
        return self.state_dir / "daemon.log"

    @property
    def record(self) -> Path:
        """What ``hookd install`` wrote, so ``uninstall`` can take exactly that back."""
        return self.state_dir / "install.json"

    @property
    def ready(self) -> Path:
        """Written by the daemon once it listens: pid, host, port, module, started."""
        return self.run_dir / f"{self.key}.json"

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


def _key(module: Path) -> str:
    try:  # the builtin module: hashlib would load OpenSSL (milliseconds of start-up)
        from _sha256 import sha256  # type: ignore[import-not-found]
    except ImportError:  # Python 3.12 and later
        try:
            from _sha2 import sha256  # type: ignore[import-not-found]
        except ImportError:
            from hashlib import sha256
    digest: str = sha256(str(module).encode()).hexdigest()[:12]
    return f"{module.stem}-{digest}"


def _xdg_dirs() -> tuple[str, str] | None:
    """platformdirs' user state and runtime directories in the usual Linux case, else None.

    The usual case: an absolute ``$HOME`` or ``$XDG_STATE_HOME``, and a runtime
    directory (``$XDG_RUNTIME_DIR``, else ``/run/user/UID``) that is a real
    directory of ours with mode 0700. Importing platformdirs costs ``hookd up``
    a third of its start-up; a test keeps the two in agreement.
    """
    if sys.platform != "linux":
        return None
    state = os.environ.get("XDG_STATE_HOME", "")
    if not os.path.isabs(state):
        if not os.path.isabs(os.environ.get("HOME", "")):
            return None
        state = os.path.expanduser("~/.local/state")
    run = os.environ.get("XDG_RUNTIME_DIR", "")
    if not os.path.isabs(run):
        run = f"/run/user/{os.geteuid()}"
    if not _private_runtime(run):
        return None
    return os.path.join(state, APP), os.path.join(run, APP)


def _private_runtime(path: str) -> bool:
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return (
        stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and info.st_mode & 0o777 == 0o700
    )


def _base_dirs() -> tuple[Path, Path]:
    found = _xdg_dirs()
    if found is None:
        found = _platform_dirs()
    state, run = Path(found[0]), Path(found[1])
    try:
        run.mkdir(mode=0o700, exist_ok=True)  # the runtime directory itself must exist already
    except OSError:  # none on this system (no XDG_RUNTIME_DIR): keep it with the state
        run = state / "run"
    return state, run


def _platform_dirs() -> tuple[str, str]:
    import warnings

    import platformdirs

    state = platformdirs.user_state_dir(APP, appauthor=False)
    with warnings.catch_warnings():  # its own fallback for an unsafe XDG_RUNTIME_DIR is fine
        warnings.simplefilter("ignore")
        run = platformdirs.user_runtime_dir(APP, appauthor=False)
    return state, run


def daemon_paths(module: Path) -> DaemonPaths:
    """The files of ``module``'s daemon; their directories exist (0700) on return."""
    state, run = _base_dirs()
    key = _key(module)
    paths = DaemonPaths(module, key, state / "daemons" / key, run)
    try:
        _private_dir(paths.state_dir)
        _private_dir(paths.run_dir)
    except OSError as exc:
        raise PathError(f"cannot create the state directory: {exc}") from None
    return paths


def known_daemons() -> list[Path]:
    """Ready files of every daemon that reported itself running (maybe stale)."""
    _, run = _base_dirs()
    return sorted(run.glob("*-*.json")) if run.is_dir() else []


def _private_dir(path: Path) -> None:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)


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
    try:
        token = paths.token.read_text().strip()
    except FileNotFoundError:
        token = ""
    if token or not create:
        return token or None
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
