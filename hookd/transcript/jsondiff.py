"""Field-level comparison of a recorded answer with the one hookd gave.

Values are compared as parsed JSON: key order and whitespace never matter, and
``30`` equals ``30.0`` (but not ``true``). hookd may add a field the recording
lacks only at the paths of :data:`ADDITIONS` (its documented additions to the
protocol), and the paths of :data:`VOLATILE` differ between builds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import msgspec

__all__ = ["ADDITIONS", "MISSING", "VOLATILE", "Difference", "compare", "render_path"]

Path = tuple[str | int, ...]


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


#: Stands for "no such field" on one side of a :class:`Difference`.
MISSING: Final = _Missing()

#: Fields hookd adds to answers (``*`` matches any key), as SPEC.md section 2.3
#: lists them: ``error_code`` in control-protocol errors and ``serverInfo`` in
#: ``initialize`` answers.
ADDITIONS: Final[tuple[Path, ...]] = (
    ("response", "error_code"),
    ("response", "response", "serverInfo"),
    ("result", "serverInfo"),
)

#: Fields whose value changes from run to run or build to build: the server's
#: version, and the per-hook timings of a ``hook_dispatch`` answer.
VOLATILE: Final[tuple[Path, ...]] = (
    ("response", "response", "serverInfo", "version"),
    ("result", "serverInfo", "version"),
    ("response", "response", "hooks", "*", "elapsed_ms"),
    ("result", "hooks", "*", "elapsed_ms"),
)


@dataclass(frozen=True, slots=True)
class Difference:
    """One field that differs: ``recorded`` or ``got`` is :data:`MISSING` when absent."""

    path: Path
    recorded: Any
    got: Any

    def describe(self) -> str:
        where = render_path(self.path) or "(whole message)"
        if self.got is MISSING:
            return f"{where}: missing (recorded {_show(self.recorded)})"
        if self.recorded is MISSING:
            return f"{where}: unexpected field (got {_show(self.got)})"
        return f"{where}: recorded {_show(self.recorded)}, got {_show(self.got)}"


def render_path(path: Path) -> str:
    """``("response", "hooks", 0)`` -> ``response.hooks[0]``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def _show(value: Any, limit: int = 200) -> str:
    text = msgspec.json.encode(value).decode()
    return text if len(text) <= limit else text[: limit - 3] + "..."


def compare(recorded: Any, got: Any, base: Path = ()) -> list[Difference]:
    """Every difference between ``recorded`` and ``got``; empty when they match.

    ``base`` is the path of the values inside their message; :data:`ADDITIONS`
    and :data:`VOLATILE` are matched against the path relative to the message.
    """
    out: list[Difference] = []
    _walk(recorded, got, base, len(base), out)
    return out


def _walk(recorded: Any, got: Any, path: Path, rel: int, out: list[Difference]) -> None:
    if _matches(path[rel:], VOLATILE):
        return
    if isinstance(recorded, dict) and isinstance(got, dict):
        _walk_dict(recorded, got, path, rel, out)
    elif isinstance(recorded, list) and isinstance(got, list):
        _walk_list(recorded, got, path, rel, out)
    elif not _same_scalar(recorded, got):
        out.append(Difference(path, recorded, got))


def _walk_dict(
    recorded: dict[str, Any], got: dict[str, Any], path: Path, rel: int, out: list[Difference]
) -> None:
    for key, value in recorded.items():
        if key in got:
            _walk(value, got[key], (*path, key), rel, out)
        else:
            out.append(Difference((*path, key), value, MISSING))
    for key, value in got.items():
        if key not in recorded and not _matches((*path, key)[rel:], ADDITIONS):
            out.append(Difference((*path, key), MISSING, value))


def _walk_list(
    recorded: list[Any], got: list[Any], path: Path, rel: int, out: list[Difference]
) -> None:
    for i, (a, b) in enumerate(zip(recorded, got, strict=False)):
        _walk(a, b, (*path, i), rel, out)
    for i in range(len(got), len(recorded)):
        out.append(Difference((*path, i), recorded[i], MISSING))
    for i in range(len(recorded), len(got)):
        out.append(Difference((*path, i), MISSING, got[i]))


def _same_scalar(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return type(a) is type(b) and bool(a == b)


def _matches(path: Path, patterns: Sequence[Path]) -> bool:
    return any(
        len(p) == len(path) and all(x in ("*", y) for x, y in zip(p, path, strict=True))
        for p in patterns
    )
