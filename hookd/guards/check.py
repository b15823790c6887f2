"""One line through the rules: :func:`check` gives the parse, what matched, and the verdict."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Final

from hookd.guards.code import CODE_RULES, shell_texts
from hookd.guards.files import FILE_RULES, is_mkfs
from hookd.guards.git import GIT_RULES
from hookd.guards.paths import SYSTEM_TEMP, Scope
from hookd.guards.rule import Finding, Rule
from hookd.shell import Command, Parse, parse

__all__ = ["PACKS", "RULES", "Checker", "Report"]

#: Every rule, in the order they are tried.
RULES: Final[tuple[Rule, ...]] = (*FILE_RULES, *GIT_RULES, *CODE_RULES)
#: The packs, each with its rules' ids.
PACKS: Final[dict[str, tuple[str, ...]]] = {
    pack: tuple(r.id for r in RULES if r.pack == pack)
    for pack in dict.fromkeys(r.pack for r in RULES)
}
#: How deep code's own shell commands are followed (``python -c "os.system('bash -c ...')"``).
_CODE_DEPTH: Final = 3


@dataclass(frozen=True, slots=True)
class Report:
    """What the guard made of one line: the commands, the rules that matched, and why it
    denies (``denied``), if it does."""

    parse: Parse
    findings: tuple[Finding, ...] = ()
    doubts: tuple[str, ...] = field(default=())

    @property
    def denied(self) -> bool:
        return bool(self.findings or self.doubts)

    def reason(self) -> str:
        """The deny reason (empty when allowed): the first finding, or the first doubt."""
        if self.findings:
            more = len(self.findings) - 1
            return self.findings[0].reason() + (f" (and {more} more)" if more else "")
        return self.doubts[0] if self.doubts else ""


@dataclass(frozen=True, slots=True)
class Checker:
    """The rules switched on, the allowed paths, and whether doubt denies (``strict``)."""

    rules: tuple[Rule, ...]
    allowed: tuple[str, ...]
    strict: bool = False

    @classmethod
    def make(
        cls,
        *,
        allow: Iterable[str] = (),
        strict: bool = False,
        packs: Iterable[str] | None = None,
        disable: Iterable[str] = (),
    ) -> Checker:
        """``packs``: the packs on (None: all); ``disable``: packs or rule ids switched off."""
        wanted = set(PACKS) if packs is None else set(packs)
        off = set(disable)
        known = set(PACKS) | {r.id for r in RULES}
        unknown = sorted((wanted | off) - known)
        if unknown:
            raise ValueError(f"unknown rule pack or rule {unknown[0]!r} (known: {sorted(known)})")
        rules = tuple(
            r for r in RULES if r.pack in wanted and r.pack not in off and r.id not in off
        )
        return cls(rules, (*SYSTEM_TEMP, *allow), strict)

    def check(self, text: str, cwd: str | None = None) -> Report:
        """Check one command line, its relative paths read against ``cwd``."""
        parsed = parse(text)
        scope = Scope.make(self.allowed, cwd)
        findings = self._findings(parsed.commands, scope, 0)
        doubts = []
        if parsed.cut:
            doubts.append(f"destructive_commands: not read whole ({parsed.problems[0]})")
        if self.strict:
            doubts += [f"destructive_commands (strict): {p}" for p in parsed.problems]
            doubts += [
                f"destructive_commands (strict): `{c.shown()}` runs a command not known before "
                "it runs" for c in parsed.commands if c.unknown
            ]  # fmt: skip
        return Report(parsed, tuple(findings), tuple(dict.fromkeys(doubts)))

    def _findings(self, commands: Iterable[Command], scope: Scope, depth: int) -> list[Finding]:
        found = []
        for command in commands:
            name = command.name or ""
            key = "mkfs" if is_mkfs(name) else name
            for rule in self.rules:
                if rule.programs and key not in rule.programs:
                    continue
                detail = rule.check(command, scope)
                if detail is not None:
                    found.append(Finding(rule.id, rule.pack, command, detail))
            if command.code and depth < _CODE_DEPTH:
                found += self._findings(_started_by(command), scope, depth + 1)
        return found


def _started_by(command: Command) -> list[Command]:
    """The shell commands an interpreter one-liner starts, reached through it."""
    label = f"{command.name} code"
    return [
        replace(inner, via=(*command.via, label, *inner.via), repeated=command.repeated)
        for text in shell_texts(command)
        for inner in parse(text).commands
    ]
