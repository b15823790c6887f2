"""Merge the outputs of several hooks of one event into one output.

Every field of an output has one rule (:data:`RULES`); a field not listed is
*single-valued*. Outputs are taken in registration order, whatever order the
hooks finished in, so the merge is deterministic.

===================================  ===========================================
field                                merged value
===================================  ===========================================
``continue``                         ``false`` if any hook says false; the
                                     ``stopReason`` values of those hooks joined
``hookSpecificOutput.                deny > defer > ask > allow; one deciding
permissionDecision``                 hook's reason as it wrote it, several
                                     named: ``hook_3: reason``
``hookSpecificOutput.decision.       deny > allow (PermissionRequest); the
behavior``                           message names the deciding hook(s)
``decision``                         ``block`` > ``approve`` > none; the reason
                                     names the deciding hook(s)
``hookSpecificOutput.action``        decline > cancel > accept (Elicitation)
``additionalContext``,               every value kept, joined with newlines
``systemMessage``,
``classifierContext``
``suppressOutput``, ``retry``, ...   true if any hook says true
``watchPaths``,                      union, first-seen order
``updatedPermissions``
``async``, ``asyncTimeout``          dropped (a merged answer is never async)
single-valued (``updatedInput``,     parallel: kept if every hook that sets it
``updatedToolOutput``,               agrees, else a conflict: dropped and
``sessionTitle``, ...)               reported; sequential: the last value stands
===================================  ===========================================
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import msgspec

__all__ = ["Conflict", "Merged", "Vote", "merge"]

Path = tuple[str, ...]
HSO: Final = "hookSpecificOutput"

#: Objects merged field by field; every other value is merged whole.
NAMESPACES: Final[tuple[Path, ...]] = ((), (HSO,), (HSO, "decision"))


@dataclass(frozen=True, slots=True)
class Vote:
    """One hook's output, under the id that produced it."""

    callback_id: str
    output: Mapping[str, Any]


class Conflict(msgspec.Struct, frozen=True):
    """Hooks that set a single-valued field to different values (as on the wire)."""

    field: str
    callback_ids: list[str]
    resolution: str = "dropped"


@dataclass(slots=True)
class Merged:
    """The merged output and the conflicts found on the way."""

    output: dict[str, Any]
    conflicts: list[Conflict] = field(default_factory=list)


# ------------------------------------------------------------------------- rules


@dataclass(frozen=True, slots=True)
class Ranked:
    """The highest-ranked value wins; values without a rank count as no vote."""

    ranks: Mapping[Any, int]
    reason: str | None = None
    named: bool = True


@dataclass(frozen=True, slots=True)
class Join:
    """Every string kept, joined with ``sep``."""

    sep: str = "\n"


@dataclass(frozen=True, slots=True)
class AnyTrue:
    """True if any hook says true."""


@dataclass(frozen=True, slots=True)
class Union:
    """The lists concatenated, duplicates removed."""


@dataclass(frozen=True, slots=True)
class Omit:
    """Not merged here: filled in, carried by another rule, or dropped."""


Rule = Ranked | Join | AnyTrue | Union | Omit

PERMISSION_RANKS: Final = {"deny": 4, "defer": 3, "ask": 2, "allow": 1}

RULES: Final[Mapping[Path, Rule]] = {
    ("continue",): Ranked({False: 1}, reason="stopReason", named=False),
    ("stopReason",): Omit(),
    ("decision",): Ranked({"block": 2, "approve": 1}, reason="reason"),
    ("reason",): Omit(),
    ("systemMessage",): Join(),
    ("suppressOutput",): AnyTrue(),
    ("terminalSequence",): Join(""),
    ("async",): Omit(),
    ("asyncTimeout",): Omit(),
    (HSO, "hookEventName"): Omit(),
    (HSO, "permissionDecision"): Ranked(PERMISSION_RANKS, reason="permissionDecisionReason"),
    (HSO, "permissionDecisionReason"): Omit(),
    (HSO, "additionalContext"): Join(),
    (HSO, "classifierContext"): Join(),
    (HSO, "watchPaths"): Union(),
    (HSO, "reloadSkills"): AnyTrue(),
    (HSO, "retry"): AnyTrue(),
    (HSO, "suppressOriginalPrompt"): AnyTrue(),
    (HSO, "action"): Ranked({"decline": 3, "cancel": 2, "accept": 1}),
    (HSO, "decision", "behavior"): Ranked({"deny": 2, "allow": 1}, reason="message"),
    (HSO, "decision", "message"): Omit(),
    (HSO, "decision", "interrupt"): AnyTrue(),
    (HSO, "decision", "updatedPermissions"): Union(),
}

#: PermissionRequest's ``decision`` keeps only the fields of the winning behavior.
DECISION_FIELDS: Final[Mapping[str, frozenset[str]]] = {
    "allow": frozenset({"behavior", "updatedInput", "updatedPermissions"}),
    "deny": frozenset({"behavior", "message", "interrupt"}),
}


# ------------------------------------------------------------------------- merge


def merge(event: str, votes: Sequence[Vote], *, sequential: bool = False) -> Merged:
    """Merge ``votes`` (registration order) into one valid output for ``event``."""
    merged = Merged({})
    for ns in NAMESPACES:
        objs = [(v.callback_id, obj) for v in votes if (obj := _object(v.output, ns))]
        target = _object_for(merged.output, ns)
        for key in _keys(objs):
            _merge_field((*ns, key), objs, target, merged, sequential)
    _finish(event, merged.output)
    return merged


def _merge_field(
    path: Path,
    objs: Sequence[tuple[str, Mapping[str, Any]]],
    target: dict[str, Any],
    merged: Merged,
    sequential: bool,
) -> None:
    key = path[-1]
    if path in NAMESPACES:
        return  # a nested object, merged field by field on its own
    values = [(cid, obj[key], obj) for cid, obj in objs if key in obj]
    match RULES.get(path):
        case Ranked() as rule:
            target.update(_ranked(key, rule, values))
        case Join(sep):
            texts = [v for _, v, _ in values if isinstance(v, str) and v]
            if texts:
                target[key] = sep.join(texts)
        case AnyTrue():
            if any(v is True for _, v, _ in values):
                target[key] = True
        case Union():
            target[key] = _union(v for _, v, _ in values)
        case Omit():
            pass
        case None:
            _single(path, values, target, merged, sequential)


def _ranked(key: str, rule: Ranked, values: Sequence[tuple[str, Any, Any]]) -> dict[str, Any]:
    ranks = [_rank(rule, v) for _, v, _ in values]
    best = max(ranks, default=0)
    if best == 0:
        return {}
    winners = [value for value, rank in zip(values, ranks, strict=True) if rank == best]
    out: dict[str, Any] = {key: winners[0][1]}
    if rule.reason is not None:
        named = rule.named and len(winners) > 1  # one decider: its own reason, as it wrote it
        lines = [_reason_line(cid, obj.get(rule.reason), named) for cid, _, obj in winners]
        text = "\n".join(line for line in lines if line)
        if text:
            out[rule.reason] = text
    return out


def _rank(rule: Ranked, value: Any) -> int:
    """``value``'s rank, 0 for none. The ranks' keys are strings or booleans, and only a
    string or a boolean is looked up: ``1`` is not ``True``, nor ``0`` ``False``."""
    if not isinstance(value, str | bool):
        return 0
    return rule.ranks.get(value, 0)


def _reason_line(callback_id: str, reason: Any, named: bool) -> str:
    text = reason if isinstance(reason, str) else ""
    if not named or text.startswith(f"{callback_id}: "):
        return text
    return f"{callback_id}: {text}" if text else callback_id


def _single(
    path: Path,
    values: Sequence[tuple[str, Any, Any]],
    target: dict[str, Any],
    merged: Merged,
    sequential: bool,
) -> None:
    if not values:
        return
    if sequential:
        target[path[-1]] = values[-1][1]
        return
    distinct: list[Any] = []
    for _, v, _ in values:
        if v not in distinct:
            distinct.append(v)
    if len(distinct) == 1:
        target[path[-1]] = distinct[0]
    else:
        ids = [cid for cid, _, _ in values]
        merged.conflicts.append(Conflict(".".join(path), ids))


def _union(lists: Any) -> list[Any]:
    out: list[Any] = []
    for value in lists:
        for item in value if isinstance(value, list) else [value]:
            if item not in out:
                out.append(item)
    return out


def _object(output: Mapping[str, Any], ns: Path) -> Mapping[str, Any]:
    obj: Any = output
    for key in ns:
        obj = obj.get(key) if isinstance(obj, Mapping) else None
    return obj if isinstance(obj, Mapping) else {}


def _object_for(root: dict[str, Any], ns: Path) -> dict[str, Any]:
    obj = root
    for key in ns:
        obj = obj.setdefault(key, {})
    return obj


def _keys(objs: Sequence[tuple[str, Mapping[str, Any]]]) -> list[str]:
    return list(dict.fromkeys(k for _, obj in objs for k in obj))


def _finish(event: str, output: dict[str, Any]) -> None:
    """Prune empty namespaces, fill ``hookEventName``, trim a PermissionRequest decision."""
    specific = output.get(HSO)
    if not isinstance(specific, dict):
        return
    decision = specific.get("decision")
    if isinstance(decision, dict):
        keep = DECISION_FIELDS.get(decision.get("behavior", ""))
        if keep is None or not decision:
            del specific["decision"]
        else:
            specific["decision"] = {k: v for k, v in decision.items() if k in keep}
    if specific:
        output[HSO] = {"hookEventName": event, **specific}
    else:
        del output[HSO]
