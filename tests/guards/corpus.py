"""The labelled command lines of tests/guards/corpus/, and the figures the guard makes on them.

``python -m tests.guards.corpus`` prints the figures per category for both sets, through the
real hook path (the three-line module tests/hooks/destructive_guard.py, fired with the testing
kit), as the corpus test computes them.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).parent / "corpus"
MODULE = Path(__file__).resolve().parents[1] / "hooks" / "destructive_guard.py"
#: The working folder every corpus line is given (its ``cwd`` input field).
CWD = "/home/dev/project"


@dataclass(frozen=True, slots=True)
class Line:
    dangerous: bool
    category: str
    command: str


@dataclass(frozen=True, slots=True)
class Figures:
    """Per category: (dangerous lines, denied of them, benign lines, denied of them)."""

    rows: dict[str, tuple[int, int, int, int]]
    misses: list[Line]

    @property
    def total(self) -> tuple[int, int, int, int]:
        d, dd, b, bd = (sum(r[i] for r in self.rows.values()) for i in range(4))
        return d, dd, b, bd

    def denied_share(self) -> float:
        d, dd, _, _ = self.total
        return dd / d

    def false_share(self) -> float:
        _, _, b, bd = self.total
        return bd / b

    def table(self, title: str) -> str:
        out = [f"{title}", f"{'category':<24}{'dangerous denied':>20}{'benign allowed':>20}"]
        for name, (d, dd, b, bd) in [*self.rows.items(), ("all", self.total)]:
            out.append(f"{name:<24}{_share(dd, d):>20}{_share(b - bd, b):>20}")
        return "\n".join(out)


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} {100 * part / whole:5.1f} %" if whole else "-"


def load(name: str) -> list[Line]:
    """The lines of ``corpus/NAME.txt``."""
    lines = []
    category = ""
    for raw in (HERE / f"{name}.txt").read_text(encoding="utf-8").splitlines():
        if raw.startswith("## "):
            category = raw[3:].strip()
        elif raw[:2] in ("D ", "A "):
            text = raw[2:]
            command = json.loads(text[5:]) if text.startswith("json:") else text
            lines.append(Line(raw[0] == "D", category, command))
    return lines


async def figures(lines: list[Line], denies: Callable[[str], Awaitable[bool]]) -> Figures:
    """Run every line through ``denies`` and count per category."""
    rows: dict[str, list[int]] = {}
    misses = []
    for line in lines:
        denied = await denies(line.command)
        row = rows.setdefault(line.category, [0, 0, 0, 0])
        row[0 if line.dangerous else 2] += 1
        row[1 if line.dangerous else 3] += denied
        if denied != line.dangerous:
            misses.append(line)
    return Figures({k: (v[0], v[1], v[2], v[3]) for k, v in rows.items()}, misses)


def kit_denies() -> Callable[[str], Awaitable[bool]]:
    """Whether the three-line module denies a command, asked through hookd.testing."""
    import hookd.testing

    hooks = hookd.testing.load(str(MODULE))

    async def denies(command: str) -> bool:
        result = await hooks.fire(
            "PreToolUse", tool_name="Bash", tool_input={"command": command}, cwd=CWD
        )
        assert result.decision in ("deny", "none"), result
        return result.decision == "deny"

    return denies


def main() -> None:
    import trio

    async def run() -> None:
        denies = kit_denies()
        for name in ("main", "heldout"):
            found = await figures(load(name), denies)
            print(found.table(f"{name} ({sum(found.total[::2])} lines)"))
            for miss in found.misses:
                said = "missed" if miss.dangerous else "denied"
                print(f"  {said} [{miss.category}] {miss.command!r}")
            print()

    trio.run(run)


if __name__ == "__main__":
    main()
