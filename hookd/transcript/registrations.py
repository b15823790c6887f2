"""Matching a recording's callback ids to the ones the hooks module registers now.

A recorded ``initialize`` hooks map says, for each callback id, its event,
matcher, timeout and failure policy. The live map (from hookd's answer to the
replayer's own ``initialize``) says the same for the module being replayed.
Ids are matched by event and matcher first, in order, and by position among
the rest second, so a hook added above the recorded ones does not shift them.
A matched pair whose timeout, matcher or policy differs is reported as a
changed registration.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Entry", "IdMatch", "entries", "match_ids"]


@dataclass(frozen=True, slots=True)
class Entry:
    """One callback id of an ``initialize`` hooks map, with its registration."""

    callback_id: str
    event: str
    matcher: str | None
    timeout: Any
    on_failure: Any

    def describe(self) -> str:
        return f"{self.callback_id} ({self.event} {self.matcher or '*'})"


@dataclass(slots=True)
class IdMatch:
    """Recorded id -> live id, and what differs or is left over."""

    mapping: dict[str, str] = field(default_factory=dict)
    changed: list[str] = field(default_factory=list)
    unmatched: list[Entry] = field(default_factory=list)  # recorded, with no live callback
    extra: list[Entry] = field(default_factory=list)  # live, never used by the recording


def entries(hooks: Any) -> list[Entry]:
    """The callback ids of a hooks map, in event/matcher/id order, with their registration."""
    found: list[Entry] = []
    if not isinstance(hooks, dict):
        return found
    for event, matchers in hooks.items():
        for group in matchers if isinstance(matchers, list) else []:
            if not isinstance(group, dict):
                continue
            ids = group.get("hookCallbackIds", [])
            for callback_id in ids if isinstance(ids, list) else []:
                if isinstance(callback_id, str):
                    found.append(
                        Entry(
                            callback_id,
                            str(event),
                            group.get("matcher"),
                            group.get("timeout"),
                            group.get("onFailure"),
                        )
                    )
    return found


def match_ids(recorded: list[Entry], live: list[Entry]) -> IdMatch:
    """Match by (event, matcher) in order, then by position among the unmatched of each event."""
    result = IdMatch()
    free = list(live)
    pending: list[Entry] = []
    for old in recorded:
        same = next((e for e in free if (e.event, e.matcher) == (old.event, old.matcher)), None)
        if same is None:
            pending.append(old)
            continue
        free.remove(same)
        _pair(result, old, same)
    for old in pending:
        same_event = next((e for e in free if e.event == old.event), None)
        if same_event is None:
            result.unmatched.append(old)
            continue
        free.remove(same_event)
        _pair(result, old, same_event)
    result.extra = free
    return result


def _pair(result: IdMatch, old: Entry, new: Entry) -> None:
    result.mapping[old.callback_id] = new.callback_id
    changes = [
        f"{what} {before!r} -> {after!r}"
        for what, before, after in (
            ("matcher", old.matcher, new.matcher),
            ("timeout", old.timeout, new.timeout),
            ("onFailure", old.on_failure, new.on_failure),
        )
        if before != after and (what == "matcher" or before is not None)  # said, and changed
    ]
    if changes:
        where = f"{old.describe()}, now {new.callback_id}"
        result.changed.append(f"registration changed: {where}: {', '.join(changes)}")
