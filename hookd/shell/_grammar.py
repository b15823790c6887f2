"""The bash grammar (tree-sitter-bash), loaded on first use, and a parse with a time budget.

tree-sitter calls a progress callback every hundred or so parser operations when the text is
read through a callback; the callback stops the parse once the line's budget is spent. The
budget is time, not a count of those calls: one call stands for anything from 30 us (a line of
short words) to 700 us (an unquoted heredoc, scanned character by character), so a count that
bounds one shape lets another run for seconds. It is the reading thread's CPU time, not the
wall clock: a machine busy with other work (or this process's first import of the grammar)
must not cut a line that fits, nor turn a guard's answer into a deny.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, Tree

__all__ = ["Budget", "first_error", "grammar", "parse_bytes"]

_CHUNK = 1 << 16


@dataclass(slots=True)
class Budget:
    """The parse time left for one line and all its payloads."""

    seconds: float
    deadline: float = field(init=False)
    spent: bool = False

    def __post_init__(self) -> None:
        self.deadline = time.thread_time() + self.seconds

    def tick(self, _offset: int = 0, _has_error: bool = False) -> bool:
        """True once the time is spent (tree-sitter's progress callback: True stops the parse)."""
        if not self.spent and time.thread_time() > self.deadline:
            self.spent = True
        return self.spent


@cache
def grammar() -> Parser:
    """The bash parser, made once (the first call imports and loads the grammar)."""
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def parse_bytes(source: bytes, budget: Budget) -> Tree | None:
    """The syntax tree of ``source``, or None when the budget ran out first."""
    if budget.spent:
        return None

    def read(offset: int, _point: tuple[int, int]) -> bytes:
        return source[offset : offset + _CHUNK]

    parser = grammar()
    try:
        return parser.parse(read, progress_callback=budget.tick)
    except ValueError:  # "Parsing failed": the callback stopped it
        parser.reset()  # else the next parse would resume this one
        budget.spent = True
        return None


def first_error(root: Node) -> str | None:
    """Where the first syntax error is (``1:9``, line and column from 1), or None."""
    if not root.has_error:
        return None
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            row, column = node.start_point
            return f"{row + 1}:{column + 1}"
        stack.extend(reversed([c for c in node.children if c.has_error or c.is_missing]))
    row, column = root.start_point
    return f"{row + 1}:{column + 1}"
