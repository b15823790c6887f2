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
    root = Path(directory)
    written = []
    for name in schema_names():
        path = root / f"{name}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render_schema(name), encoding="utf-8")
        written.append(path)
    return written


@functools.cache
def _schema(name: str) -> Schema:
    body = ENVELOPES[name] if name in ENVELOPES else event_schema(name)
    return {"$schema": DIALECT, "$id": f"{BASE_URI}{name}.json", **body}
