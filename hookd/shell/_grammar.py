"""The bash grammar (tree-sitter-bash), loaded on first use, and a parse with a work budget.

tree-sitter calls a progress callback every hundred or so parser operations when the text is
read through a callback; counting those calls bounds the work of a parse by what it does, not
by the clock, so a line gets the same answer on a busy machine as on an idle one.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, Tree

__all__ = ["Budget", "first_error", "parse_bytes"]

_CHUNK = 1 << 16


@dataclass(slots=True)
class Budget:
    """The work left for one line and all its payloads (progress checks)."""

    left: int
    spent: bool = False

    def tick(self, _offset: int, _has_error: bool) -> bool:
        """tree-sitter's progress callback: True stops the parse."""
        self.left -= 1
        if self.left < 0:
            self.spent = True
        return self.spent


@cache
def _parser() -> Parser:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def parse_bytes(source: bytes, budget: Budget) -> Tree | None:
    """The syntax tree of ``source``, or None when the budget ran out first."""
    if budget.spent:
        return None

    def read(offset: int, _point: tuple[int, int]) -> bytes:
        return source[offset : offset + _CHUNK]

    try:
        return _parser().parse(read, progress_callback=budget.tick)
    except ValueError:  # "Parsing failed": the callback stopped it
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
