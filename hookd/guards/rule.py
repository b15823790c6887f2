"""A rule, what it found, and the option reader the rules share."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from hookd.guards.paths import Scope
from hookd.shell import Command

__all__ = ["Args", "Finding", "Rule", "read_args"]

#: A rule's check: why the command destroys work (one phrase), or None.
Check = Callable[[Command, Scope], "str | None"]


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule: its id (``rm-recursive``), its pack (``filesystem``), the programs it reads
    (empty: every command) and its check."""

    id: str
    pack: str
    programs: frozenset[str]
    check: Check
    summary: str


@dataclass(frozen=True, slots=True)
class Finding:
    """A rule that matched a command of the line."""

    rule: str
    pack: str
    command: Command
    detail: str

    def reason(self) -> str:
        """One line: the rule, the offending command as written, why, and what it ran through."""
        via = f" (via {' > '.join(self.command.via)})" if self.command.via else ""
        where = " on another host" if self.command.remote else ""
        return f"{self.rule}: `{self.command.shown()}`{via}{where} {self.detail}"


@dataclass(slots=True)
class Args:
    """A command's words read as options and operands.

    ``short`` holds single-letter flags (``-rf`` gives r and f), ``long`` the ``--names``,
    ``values`` each valued option's value (``--output=x``, ``-o x``), ``operands`` the rest as
    ``(word, static)`` pairs, in order.
    """

    short: set[str] = field(default_factory=set)
    long: set[str] = field(default_factory=set)
    values: dict[str, str] = field(default_factory=dict)
    operands: list[tuple[str, bool]] = field(default_factory=list)

    def has(self, *names: str) -> bool:
        """Whether any of ``names`` was given (``-r``, ``--recursive``)."""
        for name in names:
            if name.startswith("--") and name[2:] in self.long:
                return True
            if not name.startswith("--") and name[1:] in self.short:
                return True
        return False


def read_args(command: Command, start: int = 1, valued: Iterable[str] = ()) -> Args:
    """Read ``command.argv[start:]``: options until ``--`` (GNU style: anywhere), operands."""
    takes = frozenset(valued)
    args = Args()
    words = command.argv
    index = start
    options_end = False
    while index < len(words):
        word, static = words[index], command.is_static(index)
        index += 1
        if options_end or not static or not word.startswith("-") or word == "-":
            args.operands.append((word, static))
            continue
        if word == "--":
            options_end = True
        elif word.startswith("--"):
            name, equals, value = word[2:].partition("=")
            args.long.add(name)
            if equals:
                args.values[name] = value
            elif word in takes and index < len(words):
                args.values[name] = words[index]
                index += 1
        elif word in takes and index < len(words):
            args.short.add(word[1])
            args.values[word[1]] = words[index]
            index += 1
        else:
            args.short.update(word[1:])
    return args
