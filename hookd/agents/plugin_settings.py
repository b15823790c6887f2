"""The one settings line of hookd's TypeScript plugins (``hookd/agents/plugins/*.ts``).

Each plugin holds exactly one line ``const SETTINGS: Settings = {...}; // hookd:settings``,
its value JSON: which daemon to ask (``port``, ``readyFile``, ``tokenFile``: the token *file*,
never the token), how to start it (``hookd``, ``module``), which module's install wrote it
(``key``), ``failOpen``, and ``routes``: each agent event forwarded, with its deadline in
seconds and whether no answer blocks it (``closed``). An install writes the line; nothing else
in the file changes. As shipped the line names no daemon: every guarded call is refused.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final

__all__ = ["Routes", "read_settings", "routes_value", "with_settings"]

#: Each routed agent event: (its deadline in seconds, whether no answer blocks it).
Routes = Mapping[str, tuple[float, bool]]

_LINE: Final = re.compile(r"^const SETTINGS: Settings = (?P<value>.*); // hookd:settings$", re.M)


def routes_value(routes: Routes, known: Mapping[str, str], agent: str) -> dict[str, Any]:
    """``routes`` as the plugin reads them; an event the agent's dialect does not map is a
    ``ValueError``."""
    unknown = sorted(set(routes) - set(known))
    if unknown:
        raise ValueError(f"{agent} has no event {unknown[0]!r} hookd maps: expected one of "
                         f"{', '.join(known)}")  # fmt: skip
    return {e: {"deadline": d, "closed": c} for e, (d, c) in routes.items()}


def with_settings(text: str, settings: Mapping[str, Any], name: str) -> str:
    """``text`` (a plugin's source) with its settings line holding ``settings``."""
    line = f"const SETTINGS: Settings = {json.dumps(dict(settings))}; // hookd:settings"
    new, count = _LINE.subn(lambda _: line, text)
    if count != 1:
        raise ValueError(f"{name} has no settings line (`const SETTINGS: Settings = ...`)")
    return new


def read_settings(text: str) -> dict[str, Any] | None:
    """The settings a plugin's source holds; None when it has no such line (not hookd's)."""
    found = _LINE.findall(text)
    if len(found) != 1:
        return None
    try:
        value = json.loads(found[0])
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
