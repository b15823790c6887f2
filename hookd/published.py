"""Every JSON Schema hookd publishes, by name: the envelopes, then two per event.

``schemas/`` in the repository holds :func:`write_schemas`' output; a test keeps
it equal to what this module generates. Names are paths without the ``.json``
suffix: ``envelope/control-request``, ``events/PreToolUse.input``, ...
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any, Final

from hookd.events.event_schemas import event_schema, event_schema_names
from hookd.wire.envelope_schemas import ENVELOPES

__all__ = ["BASE_URI", "DIALECT", "get_schema", "render_schema", "schema_names", "write_schemas"]

DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"
BASE_URI: Final = "https://hookd.dev/schemas/"

Schema = dict[str, Any]


def schema_names() -> list[str]:
    """Every schema's name: the envelopes, then two per event in catalogue order."""
    return [*ENVELOPES, *event_schema_names()]


def get_schema(name: str) -> Schema:
    """The schema called ``name`` (a fresh copy); KeyError if there is none."""
    return copy.deepcopy(_schema(name))


def render_schema(name: str) -> str:
    """The schema as the text of its file: 2-space indented JSON and a newline."""
    return json.dumps(_schema(name), indent=2, ensure_ascii=False) + "\n"


def write_schemas(directory: str | Path) -> list[Path]:
    """Write every schema to ``directory/<name>.json``; return the paths written."""
    from hookd.nofollow import check_target, replace_file

    root = Path(directory)
    targets = {root / f"{name}.json": name for name in schema_names()}
    for path in targets:  # a link among them is refused before any file is written
        check_target(path, within=root, private_folder=False)
    for path, name in targets.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        data = render_schema(name).encode()
        replace_file(path, data, 0o644, within=root, private_folder=False)
    return list(targets)


@functools.cache
def _schema(name: str) -> Schema:
    body = ENVELOPES[name] if name in ENVELOPES else event_schema(name)
    return {"$schema": DIALECT, "$id": f"{BASE_URI}{name}.json", **body}
