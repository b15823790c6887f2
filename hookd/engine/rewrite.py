"""Rewrites: output fields that replace a field of the event's input.

==================  =====================================  ============  =========
event               output field                           input field   guarded
==================  =====================================  ============  =========
PreToolUse          hookSpecificOutput.updatedInput        tool_input    yes
PermissionRequest   hookSpecificOutput.decision.           tool_input    yes
                    updatedInput
PostToolUse         hookSpecificOutput.updatedToolOutput,  tool_response no
                    hookSpecificOutput.updatedMCPToolOutput
ElicitationResult   hookSpecificOutput.content             content       no
==================  =====================================  ============  =========

In a sequential dispatch each hook sees the input as rewritten by the hooks
before it, and every change is a :class:`ChainStep`. In a parallel dispatch
two different rewrites of one field are a conflict: neither is used, and on a
guarded field hookd also denies the action (:func:`merge_guarded`).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import msgspec

from hookd.core.policy import blocking_output
from hookd.engine.merge import HSO, Conflict, Merged, Vote, merge

__all__ = ["HOOKD", "REWRITES", "ChainStep", "Rewrite", "apply_rewrites", "merge_guarded"]

#: The name hookd signs its own votes with (a conflict's deny).
HOOKD: Final = "hookd"
_MISSING: Final = object()


@dataclass(frozen=True, slots=True)
class Rewrite:
    """An output field that replaces ``input_field`` for the hooks that follow."""

    output_path: tuple[str, ...]
    input_field: str
    guarded: bool = False

    @property
    def name(self) -> str:
        return ".".join(self.output_path)


REWRITES: Final[Mapping[str, tuple[Rewrite, ...]]] = {
    "PreToolUse": (Rewrite((HSO, "updatedInput"), "tool_input", guarded=True),),
    "PermissionRequest": (Rewrite((HSO, "decision", "updatedInput"), "tool_input", guarded=True),),
    "PostToolUse": (
        Rewrite((HSO, "updatedToolOutput"), "tool_response"),
        Rewrite((HSO, "updatedMCPToolOutput"), "tool_response"),
    ),
    "ElicitationResult": (Rewrite((HSO, "content"), "content"),),
}


class ChainStep(msgspec.Struct, frozen=True, omit_defaults=True):
    """A sequential hook that rewrote ``field``; ``changed``: the keys it changed."""

    callback_id: str
    field: str
    changed: list[str] | None = None


def apply_rewrites(
    event: str, current: dict[str, Any], callback_id: str, output: Mapping[str, Any] | None
) -> tuple[dict[str, Any], list[ChainStep]]:
    """The input after ``output``'s rewrites, and a chain step for each change."""
    steps: list[ChainStep] = []
    for rewrite in REWRITES.get(event, ()):
        found, value = _lookup(output, rewrite.output_path)
        if not found or current.get(rewrite.input_field, _MISSING) == value:
            continue
        changed = _changed_keys(current.get(rewrite.input_field), value)
        current = {**current, rewrite.input_field: copy.deepcopy(value)}
        steps.append(ChainStep(callback_id, rewrite.input_field, changed))
    return current, steps


def merge_guarded(event: str, votes: Sequence[Vote], *, sequential: bool) -> Merged:
    """:func:`~hookd.engine.merge.merge`, plus hookd's own deny when a guarded rewrite conflicts."""
    merged = merge(event, votes, sequential=sequential)
    if not merged.conflicts:
        return merged
    guarded = {r.name for r in REWRITES.get(event, ()) if r.guarded}
    clashes = [c for c in merged.conflicts if c.field in guarded]
    deny = blocking_output(event, _conflict_reason(clashes)) if clashes else None
    if deny is None:
        return merged
    merged = merge(event, [*votes, Vote(HOOKD, deny)], sequential=sequential)
    merged.conflicts = [
        msgspec.structs.replace(c, resolution="denied") if c.field in guarded else c
        for c in merged.conflicts
    ]
    return merged


def _conflict_reason(clashes: list[Conflict]) -> str:
    parts = [f"{c.field} from {', '.join(c.callback_ids)}" for c in clashes]
    return (
        f"hookd: conflicting rewrites: {'; '.join(parts)} (hooks running in parallel may not both "
        "rewrite the input; declare their matcher group sequential to chain them)"
    )


def _lookup(output: Mapping[str, Any] | None, path: tuple[str, ...]) -> tuple[bool, Any]:
    obj: Any = output
    for key in path:
        if not isinstance(obj, Mapping) or key not in obj:
            return False, None
        obj = obj[key]
    return True, obj


def _changed_keys(old: Any, new: Any) -> list[str] | None:
    """The top-level keys that differ between two dicts; None for other values."""
    if not isinstance(old, dict) or not isinstance(new, dict):
        return None
    keys = dict.fromkeys([*old, *new])
    return [k for k in keys if old.get(k, _MISSING) != new.get(k, _MISSING)]
