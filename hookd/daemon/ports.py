"""Ports other hooks modules own: their install records and their running daemons.

Ports are derived from a module's key into 10,000 slots, so two modules can
derive the same one; ``hookd install`` skips a port another module owns.
"""

from __future__ import annotations

from hookd.daemon.paths import DaemonPaths, int_field, read_json

__all__ = ["claimed_ports"]


def claimed_ports(paths: DaemonPaths) -> dict[int, str]:
    """Port -> the other module that owns it, by its install record or its ready file."""
    claimed: dict[int, str] = {}
    records = paths.state_dir.parent.glob("*/install.json")
    readies = paths.run_dir.glob("*-*.json")
    for file, key in [(r, r.parent.name) for r in records] + [(r, r.stem) for r in readies]:
        if key == paths.key:
            continue
        value = read_json(file)
        port = int_field(value, "port")
        module = (value or {}).get("module")
        if port is not None:
            claimed.setdefault(port, module if isinstance(module, str) else str(file))
    return claimed
