"""Load a hooks module: a Python file path or an importable ``package.module``.

Only the module named on the command line is loaded; nothing from the wire is
ever imported or used as a path.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import traceback
from types import ModuleType
from typing import Any

from hookd.core.api import collecting
from hookd.core.registry import RegistrationError, Registry
from hookd.core.sdk_options import find_options, hooks_of, permission_callback

__all__ = ["load_hooks"]


def load_hooks(
    spec: str,
    registry: Registry | None = None,
    *,
    require_hooks: bool = True,
    can_use_tool: str | None = None,
    shadow: bool = False,
) -> Registry:
    """Import ``spec`` and register its ``@hook`` callbacks and its ``hooks`` dict.

    Decorated callbacks get their ids as the module runs; the module-level
    ``hooks`` dict (else the ``hooks`` of a module-level ``ClaudeAgentOptions``)
    is registered after it, in its own order. The permission callback is the
    module-level callable named ``can_use_tool`` (default: ``can_use_tool``,
    else the options' ``can_use_tool``). ``shadow`` makes every hook a shadow hook.
    The registry's ``version`` is a hash of the module's file and of the files
    beside it that it imported; ``redact`` is its module-level ``redact`` list.
    """
    registry = registry if registry is not None else Registry()
    registry.shadow_all = shadow
    before = frozenset(sys.modules)
    with collecting(registry):
        module = _import(spec)
    registry.version = module_version(module, before)
    registry.redact = _redact_patterns(module, spec)
    options = find_options(module, spec)
    hooks = hooks_of(module, options)
    if hooks is not None:
        try:
            registry.add_hooks(hooks)
        except RegistrationError as exc:
            raise RegistrationError(f"{spec}: {exc}") from None
    permission = permission_callback(module, spec, options, can_use_tool)
    if permission is not None:
        registry.can_use_tool = permission
    if require_hooks and len(registry) == 0 and registry.can_use_tool is None:
        raise RegistrationError(
            f"{spec}: no hooks found (define a module-level `hooks` dict or "
            "ClaudeAgentOptions, or use @hookd.hook)"
        )
    return registry


def module_version(module: ModuleType, before: frozenset[str]) -> str:
    """The first 12 hex digits of a SHA-256 over the module's file and the files of the
    modules it imported from its own folder (``before``: the modules loaded earlier)."""
    main = getattr(module, "__file__", None)
    if not main:
        return ""
    folder = os.path.join(os.path.dirname(os.path.realpath(main)), "")
    files = {os.path.realpath(main)}
    for name, loaded in list(sys.modules.items()):
        file = getattr(loaded, "__file__", None)
        if name not in before and file and os.path.realpath(file).startswith(folder):
            files.add(os.path.realpath(file))
    digest = _sha256()
    for file in sorted(files):
        try:
            with open(file, "rb") as f:
                data = f.read()
        except OSError:
            continue
        digest.update(os.path.relpath(file, folder).encode() + b"\0" + data + b"\0")
    version: str = digest.hexdigest()[:12]
    return version


def _sha256() -> Any:
    """A SHA-256 from the builtin module when there is one (hashlib loads OpenSSL: slower)."""
    try:
        from _sha2 import sha256  # type: ignore[import-not-found]
    except ImportError:
        try:
            from _sha256 import sha256  # type: ignore[import-not-found]
        except ImportError:
            from hashlib import sha256
    return sha256()


def _redact_patterns(module: ModuleType, spec: str) -> tuple[str, ...]:
    """The module-level ``redact`` list of regular expressions, checked."""
    import re

    patterns = getattr(module, "redact", None)
    if patterns is None or callable(patterns) or isinstance(patterns, ModuleType):
        return ()  # a helper of that name, not the list
    if isinstance(patterns, str) or not isinstance(patterns, list | tuple):
        raise RegistrationError(f"{spec}: redact must be a list of regular expressions")
    for pattern in patterns:
        if not isinstance(pattern, str):
            raise RegistrationError(f"{spec}: redact: {pattern!r} is not a string")
        try:
            re.compile(pattern)
        except re.error as exc:
            raise RegistrationError(f"{spec}: redact: {pattern!r}: {exc}") from None
    return tuple(patterns)


def _import(spec: str) -> ModuleType:
    if spec.endswith(".py") or os.path.exists(spec):  # os.path: pathlib costs start-up time
        return _import_file(spec)
    try:
        return importlib.import_module(spec)
    except ModuleNotFoundError as exc:
        if exc.name and spec.startswith(exc.name):
            raise RegistrationError(f"{spec}: no such file or module") from None
        raise RegistrationError(_failure(spec, exc)) from exc
    except Exception as exc:
        raise RegistrationError(_failure(spec, exc)) from exc


def _import_file(path: str) -> ModuleType:
    if os.path.isdir(path):
        raise RegistrationError(f"{path}: a directory, not a hooks file (give path/to/hooks.py)")
    if not os.path.isfile(path):
        raise RegistrationError(f"{path}: no such file{_bundled_hint(path)}")
    real = os.path.realpath(path)
    stem = os.path.splitext(os.path.basename(path))[0]
    name = f"hookd_user_{stem}_{abs(hash(real)):x}"
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise RegistrationError(f"{path}: cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    parent = os.path.dirname(real)
    if parent not in sys.path:
        # Sibling imports work as with `python file.py`, but after hookd's own dependencies:
        # a `watchfiles.py` or `h11.py` beside the module must not replace the library.
        sys.path.append(parent)
    try:
        module_spec.loader.exec_module(module)
    except SyntaxError as exc:
        sys.modules.pop(name, None)
        raise RegistrationError(f"{path}:{exc.lineno}: syntax error: {exc.msg}") from None
    except RegistrationError as exc:  # from @hookd.hook: say where in the module
        sys.modules.pop(name, None)
        raise RegistrationError(f"{_line_of(path, exc)}: {exc}") from None
    except BaseException as exc:
        sys.modules.pop(name, None)
        raise RegistrationError(_failure(path, exc)) from exc
    return module


def _bundled_hint(path: str) -> str:
    """Where the example of that name is installed, for ``examples/guard.py`` outside a checkout."""
    package = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    if os.path.basename(os.path.dirname(path)) != "examples":
        return ""
    name = os.path.basename(path)
    for folder in (os.path.join(package, "_examples"), os.path.join(package, "..", "examples")):
        candidate = os.path.normpath(os.path.join(folder, name))
        if os.path.isfile(candidate):
            return f" (the example installed with hookd is {candidate})"
    return ""


def _line_of(path: str, exc: BaseException) -> str:
    """``path:line`` of the module's own frame nearest the error, else ``path``."""
    here = os.path.realpath(path)
    frames = traceback.extract_tb(exc.__traceback__)
    own = [f for f in frames if os.path.realpath(f.filename) == here]
    return f"{path}:{own[-1].lineno}" if own else path


def _failure(spec: str, exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (line {frames[-1].lineno} of {frames[-1].filename})" if frames else ""
    return f"{spec}: import failed: {type(exc).__name__}: {exc}{where}"
