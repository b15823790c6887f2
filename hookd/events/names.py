"""Event names: is a name in the catalogue, and which name was probably meant."""

from __future__ import annotations

from hookd.events.table import EVENT_NAMES

__all__ = ["closest_event", "unknown_event"]


def closest_event(name: str) -> str | None:
    """The catalogue's event closest to ``name`` (a typo, another case), or None."""
    folded = {event.lower(): event for event in EVENT_NAMES}
    if name.lower() in folded:
        return folded[name.lower()]
    import difflib  # only for a misspelt name

    close = difflib.get_close_matches(name, list(EVENT_NAMES), n=1, cutoff=0.6)
    return close[0] if close else None


def unknown_event(name: str) -> str:
    """``unknown event 'X' (did you mean 'Y'?)``, or without the hint when nothing is close."""
    close = closest_event(name)
    hint = f" (did you mean {close!r}?)" if close else ""
    return f"unknown event {name!r}{hint}"
