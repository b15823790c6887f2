"""``parse(text)``: every command a shell line would run, read with bash's own grammar.

The line is parsed by tree-sitter-bash (error-tolerant: a line with a syntax error still gives
the commands around it, and a problem says where). Each simple command is found wherever it
stands (lists, pipelines, subshells, ``$(...)``, backticks, ``<(...)``, functions, ``if``,
``for``, ``case`` bodies), then expanded (:mod:`hookd.shell._peel`): wrappers peeled, payloads
parsed again, interpreter one-liners given their code. All of it shares one time budget and a
payload depth bound, so any line is answered in bounded time.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hookd.shell._grammar import Budget, first_error, grammar, parse_bytes
from hookd.shell._peel import Where, expand
from hookd.shell._walk import raw_commands
from hookd.shell.model import MAX_BYTES, MAX_COMMANDS, MAX_DEPTH, PARSE_TIME_S, Command, Parse

__all__ = ["parse"]


@dataclass(slots=True)
class _Reading:
    """One line's parse in progress: its budget, its commands and its problems so far."""

    budget: Budget
    commands: list[Command] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    cut: bool = False

    def problem(self, where: Where, what: str, *, cut: bool = True) -> None:
        self.cut = self.cut or cut
        said = f"{' > '.join(where.via)}: {what}" if where.via else what
        if said not in self.problems and len(self.problems) < 20:
            self.problems.append(said)

    def script(self, text: str, where: Where) -> list[Command]:
        """The commands of ``text`` (the line, or a payload reached ``where``)."""
        if where.depth > MAX_DEPTH:
            self.problem(where, f"payloads nested deeper than {MAX_DEPTH}")
            return []
        source = text.encode("utf-8", "surrogatepass")
        if len(source) > MAX_BYTES:
            self.problem(where, f"longer than {MAX_BYTES} bytes: not read")
            return []
        tree = parse_bytes(source, self.budget)
        if tree is None:
            self.problem(where, "too much to read in the parse's time bound: not read")
            return []
        error = first_error(tree.root_node)
        if error is not None:
            self.problem(where, f"syntax error at {error}", cut=False)
        raws, cut = raw_commands(tree.root_node, self.budget.tick)
        if cut:
            self.problem(where, "too much to read in the parse's bounds: read in part")
        found: list[Command] = []
        for raw in raws:
            if self.budget.tick():
                self.problem(where, "too much to read in the parse's time bound: read in part")
                return found
            found += expand(raw, where, lambda payload, at: self.script(payload, _deeper(at)))
            if len(found) > MAX_COMMANDS:
                self.problem(where, f"more than {MAX_COMMANDS} commands: read in part")
                return found[:MAX_COMMANDS]
        return found


def _deeper(where: Where) -> Where:
    return Where(where.via, where.depth + 1, where.remote, where.repeated)


def parse(text: str, *, parse_time_s: float = PARSE_TIME_S) -> Parse:
    """Every simple command ``text`` would run, and the problems met reading it.

    ``parse_time_s`` bounds the grammar's time for the line and its payloads together (see
    :data:`hookd.shell.model.PARSE_TIME_S`).
    """
    grammar()  # loaded before the budget starts: the first line's time is its own
    reading = _Reading(Budget(parse_time_s))
    commands = reading.script(text, Where())
    return Parse(text, tuple(commands[:MAX_COMMANDS]), tuple(reading.problems), reading.cut)
